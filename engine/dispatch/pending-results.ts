import type { SessionEvent } from '../session/event-types.js';

/** What settles a dispatched attempt's outcome in the log: the scheduler's transition after it. */
export const NODE_OUTCOME_EVENT_TYPES = ['node/succeeded', 'node/failed', 'node/retried', 'node/cancelled', 'node/skipped'] as const;

/** The events `PendingResults` folds. */
export const PENDING_RESULT_EVENT_TYPES = ['node/started', 'attempt/finished', ...NODE_OUTCOME_EVENT_TYPES] as const;

/**
 * Each node's committed `attempt/finished` that no scheduler has recorded a transition for yet:
 * a worker finished while the scheduler was away (dead, taken over). A fold over the log, in seq
 * order, that can go on with later events; a later outcome event of the node consumes its
 * pending result. An outcome committed after its attempt was settled (a worker that finished
 * after the run was cancelled under it) is not pending: a later attempt must not take it.
 */
export class PendingResults {
  readonly #pending = new Map<string, SessionEvent<'attempt/finished'>>();
  /** Each node's latest started attempt, and the latest one a scheduler settled. */
  readonly #started = new Map<string, number>();
  readonly #settled = new Map<string, number>();

  fold(events: readonly SessionEvent[]): this {
    for (const event of events) {
      const nodeId = event.nodeId;
      if (nodeId === null) continue;
      if (event.type === 'node/started') this.#started.set(nodeId, (event as SessionEvent<'node/started'>).payload.attempt);
      else if (event.type === 'attempt/finished') {
        const finished = event as SessionEvent<'attempt/finished'>;
        if (finished.payload.attempt > (this.#settled.get(nodeId) ?? 0)) this.#pending.set(nodeId, finished);
      } else if ((NODE_OUTCOME_EVENT_TYPES as readonly string[]).includes(event.type)) {
        this.#pending.delete(nodeId);
        this.#settled.set(nodeId, this.#started.get(nodeId) ?? 0);
      }
    }
    return this;
  }

  get(nodeId: string): SessionEvent<'attempt/finished'> | undefined {
    return this.#pending.get(nodeId);
  }

  has(nodeId: string): boolean {
    return this.#pending.has(nodeId);
  }

  delete(nodeId: string): void {
    this.#pending.delete(nodeId);
  }
}
