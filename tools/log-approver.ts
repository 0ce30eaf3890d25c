import { sql } from 'kysely';
import { followRun, readEvents, type ApprovalAnswer, type ApprovalRequest, type FollowedStore, type SessionEvent } from '../engine/index.js';
import type { NamedApprover } from './approvers.js';

/**
 * An approver that waits for the answer to appear in the run's log: an `approval/granted` or
 * `approval/denied` for the same tool call, written by whoever answered — the dashboard of this
 * process, or `dagent dashboard` in another terminal. The answer is already recorded, so the
 * runtime does not write it again. Waits until answered or the node is cancelled.
 */
export function createLogApprover(store: FollowedStore): NamedApprover {
  return {
    name: 'log',
    interactive: true,
    async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      const lastSeq = await maxSeq(store, request.runId);
      const earlier = (await readEvents(store.db, request.runId, { types: ['approval/granted', 'approval/denied'], toSeq: lastSeq })).find(
        (event) => answers(event, request.toolCallId),
      );
      if (earlier !== undefined) return answerOf(earlier);
      return new Promise<ApprovalAnswer>((resolve, reject) => {
        const stopFollowing = new AbortController();
        const onAbort = (): void => {
          stopFollowing.abort();
          reject(signal.reason instanceof Error ? signal.reason : new Error('the approval was cancelled'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        followRun(store, request.runId, {
          afterSeq: lastSeq,
          signal: stopFollowing.signal,
          onEvents: (events) => {
            const found = events.find((event) => answers(event, request.toolCallId));
            if (found === undefined) return;
            signal.removeEventListener('abort', onAbort);
            stopFollowing.abort();
            resolve(answerOf(found));
          },
        }).catch((error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        });
      });
    },
  };
}

function answers(event: SessionEvent, toolCallId: string): boolean {
  return (event.type === 'approval/granted' || event.type === 'approval/denied') && event.payload.toolCallId === toolCallId;
}

function answerOf(event: SessionEvent): ApprovalAnswer {
  if (event.type === 'approval/granted') return { decision: event.payload.always === true ? 'always' : 'yes', recorded: true };
  const reason = event.type === 'approval/denied' ? event.payload.reason : undefined;
  return { decision: 'no', recorded: true, ...(reason === undefined ? {} : { reason }) };
}

async function maxSeq(store: FollowedStore, runId: string): Promise<number> {
  const row = await store.db
    .selectFrom('events')
    .select(sql<number | string | null>`max(seq)`.as('seq'))
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}
