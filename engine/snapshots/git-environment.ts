import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The environment of every git process dagent runs itself, outside the sandbox (snapshots, diffs,
 * reverts, clone-mode workers): whatever a command left in the workspace, git runs no program
 * dagent did not choose.
 *
 * - No system config and an empty global one (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`,
 *   `GIT_ATTR_NOSYSTEM`): a user config that lies inside a workspace (a home folder used as one)
 *   cannot be turned against dagent. The user's own `safe.directory` entries are carried over, so
 *   git's ownership check still decides which repositories it opens, as the user set it.
 * - `CONTROLLED_GIT_CONFIG` with `git -c` precedence over every config file: no hooks, no
 *   fsmonitor program, no external diff, no attributes file of the user's.
 * - Every filter (`clean`, `smudge`, `process`) and diff driver (`textconv`, `command`) that a
 *   config file of the repository names is blanked the same way: a `.gitattributes` a command
 *   wrote can select a driver, but no driver has a program. (git 2.39 has no `--attr-source` to
 *   ignore the working tree's attributes; blanking the programs works on every git.) The list is
 *   read again whenever the repository's `.git/config` changes.
 * - The caller's `GIT_*` variables are dropped, so none redirects git (`GIT_DIR`, `GIT_CONFIG_*`).
 */
export const CONTROLLED_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.attributesFile', '/dev/null'],
  ['diff.external', ''],
  ['credential.helper', ''],
];

const DRIVER_PROGRAMS = /^(filter|diff)\.(.+)\.(clean|smudge|process|required|textconv|command)$/;

export interface GitEnvironmentOptions {
  /** The repository (or a folder in it) git runs in: its filter and diff drivers are blanked. */
  readonly cwd?: string;
  /** `GIT_INDEX_FILE`. */
  readonly indexFile?: string;
  /** More settings, after the controlled ones (`user.name` for a command that asks). */
  readonly config?: readonly (readonly [string, string])[];
}

/** The environment for one git process, from `base` (the process's own by default). */
export function controlledGitEnvironment(options: GitEnvironmentOptions = {}, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (!key.startsWith('GIT_')) env[key] = value;
  Object.assign(env, { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_ATTR_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' });
  if (options.indexFile !== undefined) env.GIT_INDEX_FILE = options.indexFile;
  const entries = [
    ...CONTROLLED_GIT_CONFIG,
    ...userSafeDirectories(base).map((path): [string, string] => ['safe.directory', path]),
    ...(options.cwd === undefined ? [] : blankedDrivers(options.cwd, env)),
    ...(options.config ?? []),
  ];
  env.GIT_CONFIG_COUNT = String(entries.length);
  entries.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

let safeDirectories: string[] | undefined;

/** `safe.directory` from the user's own system and global config, read once (reading config runs nothing). */
function userSafeDirectories(base: NodeJS.ProcessEnv): string[] {
  if (safeDirectories !== undefined) return safeDirectories;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (!key.startsWith('GIT_') || key === 'GIT_CONFIG_GLOBAL' || key === 'GIT_CONFIG_SYSTEM' || key === 'GIT_CONFIG_NOSYSTEM') env[key] = value;
  safeDirectories = [];
  for (const scope of ['--system', '--global']) {
    try {
      const output = execFileSync('git', ['config', scope, '-z', '--get-all', 'safe.directory'], { env, cwd: '/', stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
      safeDirectories.push(...output.split('\0').filter((value) => value !== ''));
    } catch {
      // none set, or no such file
    }
  }
  return safeDirectories;
}

const driverCache = new Map<string, { readonly stamp: string; readonly entries: readonly (readonly [string, string])[] }>();

/** Every filter and diff driver the repository's config names, with its programs blanked (`required` off). */
function blankedDrivers(cwd: string, env: NodeJS.ProcessEnv): readonly (readonly [string, string])[] {
  const stamp = configStamp(cwd);
  const cached = driverCache.get(cwd);
  if (cached !== undefined && cached.stamp === stamp) return cached.entries;
  const entries: [string, string][] = [];
  try {
    const listing = { ...env, GIT_CONFIG_COUNT: '0' };
    const output = execFileSync('git', ['config', '-z', '--name-only', '--get-regexp', '^(filter|diff)\\.'], { cwd, env: listing, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
    const drivers = new Set<string>();
    for (const key of output.split('\0')) {
      const match = DRIVER_PROGRAMS.exec(key);
      if (match !== null) drivers.add(`${match[1]}.${match[2]}`);
    }
    for (const driver of drivers) {
      if (driver.startsWith('filter.')) entries.push([`${driver}.clean`, ''], [`${driver}.smudge`, ''], [`${driver}.process`, ''], [`${driver}.required`, 'false']);
      else entries.push([`${driver}.textconv`, ''], [`${driver}.command`, '']);
    }
  } catch {
    // no repository here, or no driver: nothing to blank
  }
  driverCache.set(cwd, { stamp, entries });
  return entries;
}

/** Changes when the repository's config file does (a `.git` file of a worktree: its own time is enough to tell it is there). */
function configStamp(cwd: string): string {
  for (const path of [join(cwd, '.git', 'config'), join(cwd, 'config')]) {
    // In a worktree `.git` is a file: `.git/config` is then no path at all (ENOTDIR).
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (stat !== undefined) return `${path}:${stat.mtimeMs}:${stat.size}`;
  }
  return 'none';
}
