import type { EventDraft, SessionEvent } from '../../session/index.js';
import type { NodeTransition } from '../../scheduler/node-transition.js';

/**
 * The session-log event that records a transition, or `undefined` for a reset to `pending`:
 * a reset is implied by the run-level event that caused it (the run resuming, or `plan/amended`)
 * and needs only the `nodes` projection updated. `describeResult` turns a node's result into
 * the `node/succeeded` payload; by default a string result is kept and anything else is JSON.
 */
export function nodeEventDraft<R>(
  change: NodeTransition<R>,
  describeResult: (result: R) => { readonly result: string; readonly filesChanged?: readonly string[] } = defaultDescription,
): EventDraft | undefined {
  const nodeId = change.nodeId;
  switch (change.kind) {
    case 'reset':
      return undefined;
    case 'ready':
      return { type: 'node/ready', nodeId, payload: {} };
    case 'started':
      return { type: 'node/started', nodeId, payload: { attempt: change.attempts } };
    case 'succeeded': {
      const { result, filesChanged } = describeResult(change.result);
      const payload = filesChanged === undefined ? { result } : { result, filesChanged: [...filesChanged] };
      return { type: 'node/succeeded', nodeId, payload };
    }
    case 'retried':
      return { type: 'node/retried', nodeId, payload: { attempt: change.attempts, delayMs: change.delayMs, error: change.error } };
    case 'failed':
      return { type: 'node/failed', nodeId, payload: { error: change.error, attempt: change.attempts, ...(change.waitsFor === undefined ? {} : { waitsFor: change.waitsFor }) } };
    case 'skipped':
      return { type: 'node/skipped', nodeId, payload: { reason: change.reason } };
    case 'cancelled':
      return { type: 'node/cancelled', nodeId, payload: { reason: change.reason } };
  }
}

function defaultDescription(result: unknown): { result: string } {
  if (typeof result === 'string') return { result };
  return { result: JSON.stringify(result) ?? '' };
}

/** The events a node transition can leave: what `reduceNodeTransition` folds. */
export const NODE_TRANSITION_EVENT_TYPES = ['node/ready', 'node/started', 'node/succeeded', 'node/failed', 'node/skipped', 'node/cancelled', 'node/retried', 'node/reset'] as const;
