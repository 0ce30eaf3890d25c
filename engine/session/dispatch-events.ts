import { z } from 'zod';
import { defineEvent } from './define-event.js';
import { NODE_WAITS_FOR } from './event-values.js';

/** The events of a run dispatched to worker processes: the dispatch, and each attempt's claim and outcome. */
export const DISPATCH_EVENTS = {
  /** A run's nodes go to worker processes through the job queue (`run --workers`). */
  'dispatch/started': defineEvent(1, () => z.strictObject({ mode: z.enum(['shared', 'clone']), baseCommit: z.string().optional() })),
  /** A worker claimed a node attempt; `token` grows with every claim of the node. */
  'attempt/claimed': defineEvent(1, () => z.strictObject({ attempt: z.number().int().positive(), token: z.number().int().positive(), worker: z.string(), pid: z.number().int(), host: z.string() })),
  /**
   * A worker's outcome of a node attempt, committed only while its claim's token was current; `patch` in clone mode.
   * v2: `waitsFor`, as on `node/failed`.
   */
  'attempt/finished': defineEvent(2, () => attemptFinished().extend({ waitsFor: z.enum(NODE_WAITS_FOR).optional() }), {
    1: { payload: attemptFinished, upgrade: (payload) => payload },
  }),
  /**
   * Clone mode: the scheduler begins to apply a succeeded attempt's patch to the workspace;
   * `boundary`: the workspace before it. One that no outcome of the node follows was cut short (its
   * scheduler stopped, maybe inside `git apply`): the node's files go back to `boundary` before its
   * patch is applied again.
   */
  'patch/started': defineEvent(1, () => z.strictObject({ attempt: z.number().int().positive(), token: z.number().int().positive(), boundary: z.unknown() })),
} as const;

/** `attempt/finished` as version 1 wrote it. */
function attemptFinished() {
  return z.strictObject({
    attempt: z.number().int().positive(),
    token: z.number().int().positive(),
    worker: z.string(),
    outcome: z.enum(['succeeded', 'failed']),
    answer: z.string().optional(),
    filesChanged: z.array(z.string()).optional(),
    error: z.string().optional(),
    retryable: z.boolean().optional(),
    patch: z.string().optional(),
  });
}
