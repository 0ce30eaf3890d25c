import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { EventLog } from './event-log.js';

/**
 * The live logs of one store: one `EventLog` per run, so every writer in this process (the run
 * controller, the planner during a replan, tools, `cancel`, `diff --revert`) appends through the
 * same object and every `onAppend` listener (progress lines, the dashboard, an approver waiting
 * for an answer) sees every event this process commits. Other processes are followed by seq
 * (`followRun`). It lives as long as the store's database handle that owns it.
 */
export class RunLogs {
  readonly #db: Kysely<Database>;
  readonly #logs = new Map<string, EventLog>();

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The one live log of `runId`. */
  of(runId: string): EventLog {
    let log = this.#logs.get(runId);
    if (log === undefined) {
      log = new EventLog(this.#db, runId);
      this.#logs.set(runId, log);
    }
    return log;
  }
}

/** Where a database handle keeps its live logs: a field of the handle itself, not a registry beside it. */
const LIVE_LOGS = Symbol('dagent.liveLogs');

type LogOwningDatabase = Kysely<Database> & { [LIVE_LOGS]?: RunLogs };

/** The live logs owned by this database handle (the store's, or a transaction's own), made on first use. */
export function runLogs(db: Kysely<Database>): RunLogs {
  const owner = db as LogOwningDatabase;
  owner[LIVE_LOGS] ??= new RunLogs(db);
  return owner[LIVE_LOGS];
}

/** The one live log of a run in this process: `runLogs(db).of(runId)`. */
export function runLog(db: Kysely<Database>, runId: string): EventLog {
  return runLogs(db).of(runId);
}
