import { homedir } from 'node:os';
import { join } from 'node:path';
import { detectConfinement, type CommandConfinement } from '../../tools/index.js';
import type { CliContext } from '../context/cli-context.js';

/** `~/x` under the home folder; other paths as they are (the schema takes only absolute ones and `~/…`). */
function expandHome(path: string, home: string): string {
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/**
 * Where commands run: the OS sandbox (with the config's network allow-list), or none with
 * `--no-sandbox` / `sandbox.enabled: false`; `sandbox.readPaths` made visible read-only inside it.
 * `DAGENT_BWRAP` names another bubblewrap binary.
 */
export function createConfinement(context: CliContext): CommandConfinement {
  if (context.config.sandbox?.enabled === false) return { kind: 'disabled' };
  const homes = [homedir(), ...(context.io.env.HOME === undefined ? [] : [context.io.env.HOME])];
  return detectConfinement({
    homes,
    ...(context.config.sandbox?.allowHosts === undefined ? {} : { allowHosts: context.config.sandbox.allowHosts }),
    ...(context.config.sandbox?.allowPorts === undefined ? {} : { allowPorts: context.config.sandbox.allowPorts }),
    ...(context.config.sandbox?.readPaths === undefined ? {} : { readPaths: context.config.sandbox.readPaths.map((path) => expandHome(path, context.io.env.HOME ?? homedir())) }),
    ...(context.io.env.DAGENT_BWRAP === undefined ? {} : { bwrapPath: context.io.env.DAGENT_BWRAP }),
  });
}
