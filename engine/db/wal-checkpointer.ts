import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface WalCheckpointerOptions {
  /** `synchronous` of the worker's connection: a checkpoint syncs the database file unless OFF. */
  readonly synchronous: 'NORMAL' | 'FULL';
  readonly busyTimeoutMs: number;
  /** WAL size at which the worker is first started (default 4 MiB: SQLite's own 1 000 pages). */
  readonly startBytes?: number;
  /** How often the WAL is looked at (default 200 ms). */
  readonly intervalMs?: number;
  /** Called once if the worker cannot run: the caller turns SQLite's automatic checkpoints back on. */
  readonly onUnavailable: (error: unknown) => void;
}

export interface CheckpointerState {
  /** Whether the worker thread was started (it is only once the WAL grew past `startBytes`). */
  readonly started: boolean;
  /** Checkpoints the worker ran that moved pages into the database. */
  readonly checkpoints: number;
  /** Why the worker could not run (SQLite's automatic checkpoints are then back on). */
  readonly failure?: string;
}

/**
 * Moves the WAL into the database file from a worker thread, so no commit of the engine pays
 * for it. SQLite's automatic checkpoint runs inside whichever commit pushes the WAL past 1 000
 * pages and syncs the database file there: 20–30 ms on the event loop, in the middle of a run,
 * on this kind of machine. With it turned off on the main connection, a timer (which never
 * keeps the process alive) watches the WAL; once it has grown past `startBytes`, a worker with
 * its own connection runs a PASSIVE checkpoint on every tick, which never blocks the writer or
 * readers. Short-lived processes (most CLI commands) never start the worker; the last
 * connection to close checkpoints what is left, as SQLite always does.
 */
export class WalCheckpointer {
  readonly #path: string;
  readonly #options: WalCheckpointerOptions;
  readonly #timer: NodeJS.Timeout;
  #worker: Worker | undefined;
  #exited: Promise<void> | undefined;
  #checkpoints = 0;
  #last = { log: 0, checkpointed: 0 };
  #busy = false;
  #closed = false;
  #failure: string | undefined;

  constructor(path: string, options: WalCheckpointerOptions) {
    this.#path = path;
    this.#options = options;
    this.#timer = setInterval(() => void this.#tick(), options.intervalMs ?? 200);
    this.#timer.unref();
  }

  get state(): CheckpointerState {
    return { started: this.#worker !== undefined, checkpoints: this.#checkpoints, ...(this.#failure === undefined ? {} : { failure: this.#failure }) };
  }

  /** Stops the timer and the worker (letting a running checkpoint finish). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    const worker = this.#worker;
    if (worker === undefined) return;
    worker.ref(); // an unref'd worker would let the process exit while we wait for it
    worker.postMessage('close');
    await this.#exited;
  }

  async #tick(): Promise<void> {
    if (this.#closed || this.#busy) return;
    if (this.#worker === undefined) {
      const size = await stat(`${this.#path}-wal`).then(
        (file) => file.size,
        () => 0,
      );
      if (this.#closed || this.#worker !== undefined || size < (this.#options.startBytes ?? DEFAULT_START_BYTES)) return;
      this.#start();
    }
    this.#busy = true;
    this.#worker!.postMessage('checkpoint');
  }

  #start(): void {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // Not the process's flags: under --input-type=module the script would be read as ESM.
      execArgv: [],
      workerData: { driver: requireHere.resolve('better-sqlite3'), path: this.#path, synchronous: this.#options.synchronous, busyTimeoutMs: this.#options.busyTimeoutMs },
    });
    worker.unref();
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (message: { log: number; checkpointed: number } | { error: string }) => {
      this.#busy = false;
      if ('error' in message) return this.#giveUp(new Error(message.error));
      // The WAL's frames, and how many of them are in the database now; both restart at 0 when the WAL does.
      const { log, checkpointed } = message;
      if (checkpointed > 0 && (checkpointed !== this.#last.checkpointed || log !== this.#last.log)) this.#checkpoints += 1;
      this.#last = { log, checkpointed };
    });
    // A SQLite error thrown in the worker arrives as a plain object with its code only.
    worker.on('error', (error: unknown) => this.#giveUp(error instanceof Error ? error : new Error(`checkpoint worker failed: ${String((error as { code?: unknown }).code ?? error)}`)));
    this.#worker = worker;
  }

  #giveUp(error: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#failure = error instanceof Error ? error.message : String(error);
    clearInterval(this.#timer);
    void this.#worker?.terminate();
    this.#options.onUnavailable(error);
  }
}

const DEFAULT_START_BYTES = 4 * 1024 * 1024;

const requireHere = createRequire(import.meta.url);

/** The worker: one connection, a PASSIVE checkpoint per request, answered with SQLite's frame counts. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const describe = (error) => String((error && error.message) || error);
let db;
try {
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('busy_timeout = ' + Number(workerData.busyTimeoutMs));
  db.pragma('synchronous = ' + (workerData.synchronous === 'FULL' ? 'FULL' : 'NORMAL'));
} catch (error) {
  parentPort.postMessage({ error: describe(error) });
}
parentPort.on('message', (message) => {
  if (message === 'close') {
    if (db) db.close();
    parentPort.close();
    return;
  }
  if (!db) return;
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: describe(error) });
  }
});
`;
