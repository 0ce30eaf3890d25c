import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { EventLog } from '../../session/event-log.js';
import { runLog } from '../../session/run-log.js';
import type { EventDraft } from '../../session/event-types.js';
import { setRunStatus } from './plan-store.js';
import { transitionRun, type RunStatus } from './run-status.js';

/** How a run ends: the event that says so, and the run status it leads to. */
export type RunEnding =
  | { readonly status: 'succeeded'; readonly result?: string }
  | { readonly status: 'failed'; readonly error: string }
  | { readonly status: 'cancelled'; readonly reason: string }
  /**
   * The run stops and is not finished: `review`, a replan waits for review (the run awaits
   * approval); `budget`, the next model call would cross a budget; `conflict`, a node's merge
   * conflict waits for the user (`onConflict: pause`; the run is `paused`, `resume` goes on).
   */
  | { readonly status: 'paused'; readonly reason: string; readonly cause: 'review' | 'budget' | 'conflict' };

/**
 * Ends a run: appends `run/succeeded`, `run/failed`, `run/cancelled` or `run/paused` and moves
 * the run's status through its transition function, in one transaction. The one way every
 * caller (plans, react and tool runs, cancel) closes a run.
 */
export async function endRun(db: Kysely<Database>, runId: string, ending: RunEnding, log: EventLog = runLog(db, runId)): Promise<void> {
  const draft: EventDraft =
    ending.status === 'succeeded'
      ? { type: 'run/succeeded', payload: ending.result === undefined ? {} : { result: ending.result } }
      : ending.status === 'failed'
        ? { type: 'run/failed', payload: { error: ending.error } }
        : ending.status === 'cancelled'
          ? { type: 'run/cancelled', payload: { reason: ending.reason } }
          : { type: 'run/paused', payload: { reason: ending.reason, cause: ending.cause } };
  // A pause for review waits for approval; a budget or a merge conflict keeps the approval, and `resume` goes on.
  const next: RunStatus = ending.status !== 'paused' ? ending.status : ending.cause === 'review' ? 'awaiting_approval' : 'paused';
  await log.append(draft, {
    effects: async (transaction) => {
      const current = await transaction.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow();
      const finishedAt = ending.status === 'paused' ? null : new Date().toISOString();
      await setRunStatus(transaction, runId, transitionRun(current.status as RunStatus, next), { finished_at: finishedAt });
    },
  });
}
