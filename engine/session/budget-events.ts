import { z } from 'zod';
import { defineEvent } from './define-event.js';

/** A budget's caps; either may be absent (no cap on that measure). */
const caps = {
  /** USD the run may spend on model calls, priced by the price table. */
  maxCostUsd: z.number().positive().optional(),
  /** Input + output tokens the run may spend on model calls. */
  maxTokens: z.number().int().positive().optional(),
};

const reachedV1 = () =>
  z.strictObject({
    scope: z.enum(['run', 'node']),
    measure: z.enum(['cost', 'tokens']),
    spent: z.number().nonnegative(),
    estimate: z.number().nonnegative(),
    cap: z.number().positive(),
  });

const reachedV2 = () => reachedV1().extend({ call: z.enum(['summary']).optional() });

/** The events of a run's spending cap: the budget a process runs under, and the call it refused. */
export const BUDGET_EVENTS = {
  /**
   * The run's budget from here on, as a process starts it (`run`, `resume` with a new cap); where
   * it came from (`--max-cost`, the config, the budget recorded before). Workers read it too.
   */
  'budget/set': defineEvent(1, () => z.strictObject({ ...caps, source: z.enum(['flags', 'config', 'recorded']) })),
  /**
   * A model call was refused before it was sent: what was spent, the call's estimate, and the cap
   * the two together would cross. `scope` `node`: the node's own plan budget (the event's node).
   * v2 adds `call`: `summary` when the refused call was a compaction summary of the node's context
   * (absent: the node's or the planner's own call). v3 adds `inFlight`: the estimates of the
   * process's calls not answered yet, which the cap counted too; `spent` is then what the log
   * held, no longer with them (v2's `spent` included them).
   */
  'budget/reached': defineEvent(3, () => reachedV2().extend({ inFlight: z.number().positive().optional() }), {
    1: { payload: reachedV1, upgrade: (payload) => payload },
    2: { payload: reachedV2, upgrade: (payload) => payload },
  }),
} as const;
