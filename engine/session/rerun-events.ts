import { z } from 'zod';
import { defineEvent } from './define-event.js';

const tokens = z.strictObject({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative(), cacheHit: z.number().int().nonnegative(), reasoning: z.number().int().nonnegative() });

/** `step/resumed` as v2 recorded it: v1 with `interrupted`, v3 without `toolNames`. */
function stepResumedV2() {
  return z.strictObject({
    attempt: z.number().int().positive(),
    fromStep: z.number().int().nonnegative(),
    rerun: z.enum(['model-call', 'tool-calls', 'none']),
    toolCallIds: z.array(z.string()).optional(),
    interrupted: z.array(z.string()),
    restored: z.array(z.string()),
    modelCalls: z.number().int().nonnegative(),
    saved: tokens,
    savedCostUsd: z.number().nonnegative(),
  });
}

/**
 * The events of work done again or not: a node put back to pending for a new attempt (`rerun`, or a
 * plan edit it must follow), the key of its inputs when it succeeds, and whether a later plan version
 * reused its result; and, inside a node, the checkpoints of its steps and where a resumed node went on.
 */
export const RERUN_EVENTS = {
  /**
   * A succeeded (or settled) node goes back to pending for a new attempt: `rerun --from` asked for it,
   * or a new plan version changed what it depends on. `reverted`: its change was undone at that moment.
   */
  'node/reset': defineEvent(1, () => z.strictObject({ cause: z.enum(['rerun', 'plan-changed']), planVersion: z.number().int().positive(), reason: z.string(), reverted: z.boolean() })),
  /**
   * What a succeeded node's result depends on, as a content hash (`key`) and its parts: its
   * specification, model, dependencies' results and the files it read (path → content hash).
   */
  'node/keyed': defineEvent(1, () => z.strictObject({
    key: z.string(),
    planVersion: z.number().int().positive(),
    inputs: z.strictObject({ spec: z.string(), model: z.string().nullable(), dependencies: z.record(z.string(), z.string()), files: z.record(z.string(), z.string()) }),
  })),
  /** A node of a new plan version kept its earlier result: nothing it depends on changed. `saved`: what running it again would have cost, as its earlier attempt did. */
  'node/reused': defineEvent(1, () => z.strictObject({ key: z.string(), planVersion: z.number().int().positive(), fromSeq: z.number().int().nonnegative(), modelCalls: z.number().int().nonnegative(), saved: tokens, savedCostUsd: z.number().nonnegative() })),
  /** A node of a new plan version runs again: why its earlier result could not be kept. */
  'reuse/missed': defineEvent(1, () => z.strictObject({ planVersion: z.number().int().positive(), reason: z.string(), key: z.string().optional() })),
  /**
   * The node's files at the end of a step that wrote or ran a command (a snapshot boundary; with
   * isolated workspaces a commit on the node's own line): a resumed node goes back to them.
   */
  'step/checkpointed': defineEvent(1, () => z.strictObject({ attempt: z.number().int().positive(), boundary: z.unknown() })),
  /**
   * A node whose attempt was running when its process stopped, or was stopped by the run (a cancel,
   * a pause), goes on from its last completed step instead of starting over. `fromStep`: its last
   * completed step; `rerun`: what runs again (`model-call`: the call of the step after it,
   * `tool-calls`: calls of the interrupted step (read-only, never started, or file writes whose
   * files went back), by id in `toolCallIds` and tool name in `toolNames`, `none`); `interrupted`:
   * calls that had started and are not safe to run twice (a command), told the model as
   * interrupted; `restored`: files put back to the checkpoint of `fromStep`; `saved`: what its
   * completed model calls cost, not paid again.
   * v2: `interrupted`. v3: `toolNames`.
   */
  'step/resumed': defineEvent(3, () => stepResumedV2().extend({ toolNames: z.array(z.string()).optional() }), {
    1: {
      payload: () => stepResumedV2().omit({ interrupted: true }),
      upgrade: (payload) => ({ ...(payload as object), interrupted: [] }),
    },
    2: { payload: stepResumedV2, upgrade: (payload) => payload },
  }),
} as const;
