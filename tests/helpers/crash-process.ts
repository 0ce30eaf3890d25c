import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from './temp-store.js';

/** `bin/dagent.js` of this repository (which imports `dist/`), or `DAGENT_BIN` to test another build. */
export const DAGENT_BIN = process.env.DAGENT_BIN ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'dagent.js');

/** The built engine (`dist/engine/index.js`), for a child process that opens a store itself. */
export const BUILT_ENGINE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'engine', 'index.js');

/** How often a kill waits for its event count, in ms. */
const POLL_INTERVAL_MS = 2;

export interface CliExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Killed because it ran longer than its time limit. */
  readonly timedOut: boolean;
}

/** A spawned CLI that runs longer than this is killed (a hang fails its case instead of the whole file). */
export const CLI_TIME_LIMIT_MS = 60_000;

const running = new Set<ChildProcess>();

/** `kill -9` of every CLI process still running (for `afterAll`). */
export function killRunningClis(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * A test file's temporary folder for the runs its CLIs make: created before its tests; after them
 * the CLIs still running are killed and the folder removed. `dir` is read inside the tests.
 */
export function cliRunsRoot(prefix: string): { readonly dir: string } {
  let root: { dir: string; cleanup: () => void } | undefined;
  beforeAll(() => {
    root = tempDir(prefix);
  });
  afterAll(() => {
    killRunningClis();
    root?.cleanup();
  });
  return {
    get dir() {
      if (root === undefined) throw new Error('cliRunsRoot: read dir inside a test');
      return root.dir;
    },
  };
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<CliExit>;
  /** True once the process has exited. */
  hasExited(): boolean;
}

/** The environment of a spawned CLI: ours without `DAGENT_*` settings and `NODE_OPTIONS`, so only the flags count. */
export function cliEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('DAGENT_') && key !== 'NODE_OPTIONS') env[key] = value;
  return { ...env, NO_COLOR: '1' };
}

/** Spawns `node bin/dagent.js ...args` in `cwd` (after `prefix`, e.g. a wrapper command); its output is collected for the failure messages. */
export function spawnCli(args: readonly string[], cwd: string, options: { timeLimitMs?: number; env?: NodeJS.ProcessEnv; prefix?: readonly string[] } = {}): CliProcess {
  const [file, ...argv] = [...(options.prefix ?? []), process.execPath, DAGENT_BIN, ...args];
  const child = spawn(file!, argv, { cwd, env: { ...cliEnvironment(), ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let done = false;
  let timedOut = false;
  running.add(child);
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeLimitMs ?? CLI_TIME_LIMIT_MS);
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<CliExit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      done = true;
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
  return { child, exited, hasExited: () => done };
}

/** A read-only view of a run's events in a SQLite file that another process writes. */
export class EventCounter {
  readonly #db: BetterSqlite3.Database;
  readonly #count: BetterSqlite3.Statement<[string], { n: number }>;

  constructor(path: string) {
    this.#db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    this.#db.pragma('busy_timeout = 5000');
    this.#count = this.#db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM events WHERE run_id = ?');
  }

  count(runId: string): number {
    return this.#count.get(runId)?.n ?? 0;
  }

  close(): void {
    this.#db.close();
  }
}

export type KillOutcome = { readonly killed: true; readonly atEvents: number } | { readonly killed: false; readonly exit: CliExit };

/**
 * `kill -9` of `process` once the run's log holds `targetEvents` events, plus `extraDelayMs` so
 * the kill lands anywhere between two events (mid-turn, mid-tool, between nodes). Resolves after
 * the process is gone; `killed: false` when it ended first.
 */
export async function killAtEventCount(cli: CliProcess, events: EventCounter, runId: string, targetEvents: number, extraDelayMs: number): Promise<KillOutcome> {
  while (!cli.hasExited() && events.count(runId) < targetEvents) await sleep(POLL_INTERVAL_MS);
  if (!cli.hasExited() && extraDelayMs > 0) await sleep(extraDelayMs);
  if (cli.hasExited()) return { killed: false, exit: await cli.exited };
  const pid = cli.child.pid;
  if (pid === undefined) throw new Error('the CLI process has no pid');
  process.kill(pid, 'SIGKILL');
  await cli.exited;
  return { killed: true, atEvents: events.count(runId) };
}

/** Every file under `root` (workspace-relative, `/`-separated) with its content, leaving out `.dagent/` and `.git/`. */
export function workspaceContents(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const name = relative(root, path).split('\\').join('/');
      if (name === '.dagent' || name === '.git') continue;
      if (entry.isDirectory()) walk(path);
      else files.set(name, readFileSync(path, 'utf8'));
    }
  };
  if (existsSync(root)) walk(root);
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The files that differ between two workspaces, one line each (for failure messages). */
export function workspaceDifferences(actual: ReadonlyMap<string, string>, expected: ReadonlyMap<string, string>): string {
  const lines: string[] = [];
  for (const path of [...new Set([...actual.keys(), ...expected.keys()])].sort()) {
    const found = actual.get(path);
    const wanted = expected.get(path);
    if (found === wanted) continue;
    if (found === undefined) lines.push(`${path}: missing`);
    else if (wanted === undefined) lines.push(`${path}: unexpected file (${JSON.stringify(found.slice(0, 80))})`);
    else lines.push(`${path}: ${JSON.stringify(found)} instead of ${JSON.stringify(wanted)}`);
  }
  return lines.length === 0 ? 'the files equal the reference run' : lines.join('\n');
}
