import { join } from 'node:path';

/**
 * The user's own dagent folder: `$XDG_CONFIG_HOME/dagent`, else `~/.config/dagent`; undefined
 * when the environment names neither (then there is no user config and no trust).
 */
export function userConfigDir(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg) return join(xdg, 'dagent');
  const home = env.HOME?.trim();
  return home ? join(home, '.config', 'dagent') : undefined;
}

/** `config.json` in the user's dagent folder. */
export function userConfigPath(env: NodeJS.ProcessEnv): string | undefined {
  const dir = userConfigDir(env);
  return dir === undefined ? undefined : join(dir, 'config.json');
}

/**
 * The user's own dagent data folder, shared by every workspace: `$XDG_DATA_HOME/dagent`, else
 * `~/.local/share/dagent`; undefined when the environment names neither.
 */
export function userDataDir(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_DATA_HOME?.trim();
  if (xdg) return join(xdg, 'dagent');
  const home = env.HOME?.trim();
  return home ? join(home, '.local', 'share', 'dagent') : undefined;
}

/** The database of the user's `user`-scope memories, in `userDataDir`. */
export function userMemoryDatabasePath(env: NodeJS.ProcessEnv): string | undefined {
  const dir = userDataDir(env);
  return dir === undefined ? undefined : join(dir, 'memories.db');
}
