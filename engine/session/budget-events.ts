import { z } from 'zod';
import { defineEvent } from './define-event.js';

/** A budget's caps; either may be absent (no cap on that measure). */
const caps = {
  /** USD the run may spend on model calls, priced by the price table. */
  maxCostUsd: z.number().positive().optional(),
  /** Input + output tokens the run may spend on model calls. */
  maxTokens: z.number().int().positive().optional(),
};

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
   */
  'budget/reached': defineEvent(1, () => z.strictObject({
    scope: z.enum(['run', 'node']),
    measure: z.enum(['cost', 'tokens']),
    spent: z.number().nonnegative(),
    estimate: z.number().nonnegative(),
    cap: z.number().positive(),
  })),
} as const;
