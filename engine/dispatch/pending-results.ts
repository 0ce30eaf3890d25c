import type { SessionEvent } from '../session/event-types.js';

/** What settles a dispatched attempt's outcome in the log: the scheduler's transition after it. */
export const NODE_OUTCOME_EVENT_TYPES = ['node/succeeded', 'node/failed', 'node/retried', 'node/cancelled', 'node/skipped'] as const;

/** The events `pendingResults` folds. */
export const PENDING_RESULT_EVENT_TYPES = ['attempt/finished', ...NODE_OUTCOME_EVENT_TYPES] as const;

/**
 * Each node's committed `attempt/finished` that no scheduler has recorded a transition for yet:
 * a worker finished while the scheduler was away (dead, taken over). A fold over the log, in seq
 * order; a later outcome event of the node consumes its pending result.
 */
export function pendingResults(events: readonly SessionEvent[], into: Map<string, SessionEvent<'attempt/finished'>> = new Map()): Map<string, SessionEvent<'attempt/finished'>> {
  for (const event of events) {
    if (event.nodeId === null) continue;
    if (event.type === 'attempt/finished') into.set(event.nodeId, event as SessionEvent<'attempt/finished'>);
    else if ((NODE_OUTCOME_EVENT_TYPES as readonly string[]).includes(event.type)) into.delete(event.nodeId);
  }
  return into;
}
