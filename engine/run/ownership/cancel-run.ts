import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { DagentError } from '../../errors.js';
import { runLog } from '../../session/run-log.js';
import { endRun } from '../storage/end-run.js';
import { needsLivingProcess, runOwner } from './run-owner.js';
import { getRun } from '../storage/run-store.js';
import type { RunStatus } from '../storage/run-status.js';
import { statusWords } from '../storage/status-words.js';

/** How often `cancelRun` looks whether the run has stopped. */
const CANCEL_POLL_MS = 200;

/** `cancel` of a run that is not running. */
export class RunNotRunningError extends DagentError {
  constructor(readonly runId: string, readonly status: RunStatus) {
    super(`run ${runId} is not running (${statusWords(status)})`);
  }
}

/**
 * Asks a running run to stop: `run/cancel-requested` in its log (which the process running it,
 * and any scheduler or worker following the log on another host, acts on), then SIGINT to that
 * process when it is on this host. Returns the process, or undefined when none is alive.
 */
export async function requestCancel(db: Kysely<Database>, runId: string, by: string): Promise<{ pid: number } | undefined> {
  await runLog(db, runId).append({ type: 'run/cancel-requested', payload: { by } });
  const owner = await runOwner(db, runId);
  if (owner === undefined || !owner.alive) return undefined;
  if (owner.host === hostname()) process.kill(owner.pid, 'SIGINT');
  return { pid: owner.pid };
}

/** What came of `cancelRun`. */
export type CancelOutcome = {
  readonly runId: string;
  /** What the run was doing when cancel was asked: `planning` or `running`. */
  readonly from: RunStatus;
} & (
  /** The process running it stopped it (cancelled, or it had just finished) within the wait. */
  | { readonly kind: 'stopped'; readonly pid: number; readonly status: RunStatus }
  /** The request is in the log, but the process had not stopped the run when the wait ran out. */
  | { readonly kind: 'still-running'; readonly pid: number }
  /** No process runs it any more (killed, or the machine restarted): the cancellation is recorded here. */
  | { readonly kind: 'recorded' }
);

/**
 * The cancel protocol of `dagent cancel`: refuses a run that is neither planning nor running,
 * requests the cancel, waits up to `waitMs` for the run to leave that status, and ends a run
 * whose process is gone as cancelled itself. A running run stays resumable in every case.
 */
export async function cancelRun(
  db: Kysely<Database>,
  runId: string,
  options: { readonly by: string; readonly waitMs: number; readonly signal?: AbortSignal; readonly pollMs?: number },
): Promise<CancelOutcome> {
  const run = await getRun(db, runId);
  if (!needsLivingProcess(run.status)) throw new RunNotRunningError(run.id, run.status);
  const owner = await requestCancel(db, run.id, options.by);
  if (owner === undefined) {
    const what = run.status === 'planning' ? 'its planning process' : 'its process';
    await endRun(db, run.id, { status: 'cancelled', reason: `cancelled after ${what} had stopped` });
    return { runId: run.id, from: run.status, kind: 'recorded' };
  }
  const deadline = Date.now() + options.waitMs;
  while (Date.now() < deadline) {
    const current = await getRun(db, run.id);
    if (current.status !== run.status) return { runId: run.id, from: run.status, kind: 'stopped', pid: owner.pid, status: current.status };
    await sleep(options.pollMs ?? CANCEL_POLL_MS, undefined, options.signal === undefined ? undefined : { signal: options.signal });
  }
  return { runId: run.id, from: run.status, kind: 'still-running', pid: owner.pid };
}
