import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL server on 127.0.0.1 for the storage contract tests: initdb into a
 * temporary folder as the `postgres` user, pg_ctl start on a free port. Returns undefined
 * when the binaries are not installed (`.ci/run` installs them).
 *
 * pg_ctl puts the server in a session of its own, so nothing that ends the test run reaches it:
 * the server is stopped and its folder removed when the process that started it exits (normally,
 * by `process.exit`, or on SIGINT, SIGTERM or SIGHUP), and a server left by a run that could not
 * clean up (SIGKILL) is stopped by the next run, which finds its folder's owner gone.
 */
export interface PostgresServer {
  readonly url: string;
  /** Stops the server and removes its folder; safe to call more than once. */
  stop(): void;
}

const FOLDER_PREFIX = 'dagent-pg-';
/** The process that owns a server folder: `pid start-time`, written before the server starts. */
const OWNER_FILE = 'owner';
/** A folder from before owner files, with no server running in it, is left alone this long (it may be mid-initdb). */
const UNOWNED_IDLE_GRACE_MS = 10 * 60_000;
/** No test run lasts this long: an unowned folder this old is stale even with a server running in it. */
const UNOWNED_RUNNING_GRACE_MS = 6 * 60 * 60_000;
const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_NUMBERS: Record<(typeof EXIT_SIGNALS)[number], number> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };

export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'pg_ctl')) && existsSync(join(bin, 'initdb'))) return bin;
  }
  return undefined;
}

export async function startPostgres(): Promise<PostgresServer | undefined> {
  const bin = findPostgresBin();
  if (bin === undefined) return undefined;
  removeStaleServers(bin);
  const dir = mkdtempSync(join(tmpdir(), FOLDER_PREFIX));
  chmodSync(dir, 0o777);
  writeFileSync(join(dir, OWNER_FILE), ownerLine(process.pid) ?? `${process.pid}`);
  const data = join(dir, 'data');
  const stop = stopOnce(bin, dir);
  const untie = stopWhenProcessEnds(stop);
  try {
    const port = await freePort();
    runAsPostgres(bin, 'initdb', ['-A', 'trust', '-U', 'postgres', '-D', data, '--no-sync']);
    runAsPostgres(bin, 'pg_ctl', ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      stop() {
        untie();
        stop();
      },
    };
  } catch (error) {
    untie();
    stop();
    throw error;
  }
}

function runAsPostgres(bin: string, command: string, args: readonly string[]): void {
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), [...args]];
  execFileSync(file, argv, { stdio: 'pipe' });
}

/** Stops the server in `dir` (if one runs) and removes the folder, once. Synchronous: it runs in an exit handler. */
function stopOnce(bin: string, dir: string): () => void {
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    stopServer(bin, dir);
  };
}

function stopServer(bin: string, dir: string): void {
  const data = join(dir, 'data');
  if (existsSync(join(data, 'postmaster.pid'))) {
    const args = [join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop'];
    const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0]!, args.slice(1)];
    spawnSync(file, argv, { stdio: 'ignore', timeout: 30_000 });
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Runs `stop` when this process ends: at exit (vitest exits with `process.exit` on Ctrl-C, without
 * its global teardown), and on a terminating signal, which is re-raised when no one else handles it.
 * Returns the function that removes the handlers.
 */
function stopWhenProcessEnds(stop: () => void): () => void {
  const onSignal = (signal: (typeof EXIT_SIGNALS)[number]): void => {
    stop();
    if (process.listenerCount(signal) === 0) process.exit(128 + SIGNAL_NUMBERS[signal]);
  };
  const handlers = EXIT_SIGNALS.map((signal) => [signal, () => onSignal(signal)] as const);
  process.once('exit', stop);
  for (const [signal, handler] of handlers) process.once(signal, handler);
  return () => {
    process.off('exit', stop);
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

/** Servers left behind by runs that could not clean up (killed with SIGKILL): their owner is gone. */
function removeStaleServers(bin: string): void {
  const root = tmpdir();
  let names: string[];
  try {
    names = readdirSync(root).filter((name) => name.startsWith(FOLDER_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(root, name);
    try {
      if (isStale(dir)) stopServer(bin, dir);
    } catch {
      // Another run removed it meanwhile, or it is not ours to read: leave it.
    }
  }
}

function isStale(dir: string): boolean {
  const ownerFile = join(dir, OWNER_FILE);
  if (existsSync(ownerFile)) {
    const [pid, started] = readFileSync(ownerFile, 'utf8').trim().split(' ');
    const current = ownerLine(Number(pid));
    return current === undefined || (started !== undefined && current !== `${pid} ${started}`);
  }
  // A folder from before owner files: stale once nothing runs in it, or once no run could still be using it.
  const age = Date.now() - statSync(dir).mtimeMs;
  const postmaster = join(dir, 'data', 'postmaster.pid');
  const serverPid = existsSync(postmaster) ? Number(readFileSync(postmaster, 'utf8').split('\n')[0]) : undefined;
  const running = serverPid !== undefined && ownerLine(serverPid) !== undefined;
  return age > (running ? UNOWNED_RUNNING_GRACE_MS : UNOWNED_IDLE_GRACE_MS);
}

/** `pid start-time` of a living process (its start time from /proc, so a reused pid does not pass), or undefined. */
function ownerLine(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return `${pid} ${startTime}`;
  } catch {
    return `${pid}`;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
