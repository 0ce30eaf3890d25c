import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { EventLog } from './event-log.js';

/** The logs handed out so far, per store: one `EventLog` object per (store, run). */
const logsByStore = new WeakMap<Kysely<Database>, Map<string, EventLog>>();

/**
 * The one live log of a run in this process. Every writer (the run controller, the planner
 * during a replan, tools, `cancel`, `diff --revert`) appends through it, so every `onAppend`
 * listener — progress lines, the dashboard, an approver waiting for an answer — sees every
 * event this process commits. Other processes are followed by seq (`followRun`).
 */
export function runLog(db: Kysely<Database>, runId: string): EventLog {
  let logs = logsByStore.get(db);
  if (logs === undefined) {
    logs = new Map();
    logsByStore.set(db, logs);
  }
  let log = logs.get(runId);
  if (log === undefined) {
    log = new EventLog(db, runId);
    logs.set(runId, log);
  }
  return log;
}
