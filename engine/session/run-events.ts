import { z } from 'zod';
import { lintFindingSchema } from '../plan/lint-finding.js';
import { defineEvent } from './define-event.js';
import { RUN_MODES } from './event-values.js';

/** The events of a run's life and its plan's versions: created, started, ended; planned, approved, amended, replanned. */
export const RUN_EVENTS = {
  /**
   * v2 names the process that created the run (`pid`, `host`, and its `startTime` where /proc has
   * one, which tells it from a later process given the same pid): a plan-mode run's planning
   * process, known from the run's first write, so one killed before it took the run's lease is
   * still seen gone.
   */
  'run/created': defineEvent(2, () => z.strictObject({ task: z.string(), workspace: z.string(), mode: z.enum(RUN_MODES), pid: z.number().int().optional(), host: z.string().optional(), startTime: z.string().optional() }), {
    1: { payload: () => z.strictObject({ task: z.string(), workspace: z.string(), mode: z.enum(RUN_MODES) }), upgrade: (payload) => payload },
  }),
  'run/started': defineEvent(1, () => z.strictObject({ pid: z.number().int().optional(), host: z.string().optional(), planVersion: z.number().int().optional(), allowedLint: z.array(z.string()).optional() })),
  'run/succeeded': defineEvent(1, () => z.strictObject({ result: z.string().optional() })),
  'run/failed': defineEvent(1, () => z.strictObject({ error: z.string() })),
  'run/cancelled': defineEvent(1, () => z.strictObject({ reason: z.string().optional() })),
  /**
   * The run stopped, not finished: `review` (v1's only cause), a replanned version waits for
   * approval; `budget`, the next model call would have crossed the run's or a node's budget
   * (resumable with a higher one); `conflict`, a node's merge conflict waits for the user.
   */
  'run/paused': defineEvent(2, () => z.strictObject({ reason: z.string(), cause: z.enum(['review', 'budget', 'conflict']) }), {
    1: { payload: () => z.strictObject({ reason: z.string() }), upgrade: (payload) => ({ ...(payload as { reason: string }), cause: 'review' }) },
  }),
  'run/cancel-requested': defineEvent(1, () => z.strictObject({ by: z.string().optional() })),
  'plan/created': defineEvent(1, () => z.strictObject({ version: z.number().int().positive(), plan: z.unknown(), hash: z.string(), reason: z.string().optional(), lint: z.array(lintFindingSchema).optional() })),
  'plan/approved': defineEvent(1, () => z.strictObject({ version: z.number().int().positive(), hash: z.string(), allowedLint: z.array(z.string()).optional() })),
  'plan/rejected': defineEvent(1, () => z.strictObject({ version: z.number().int().positive(), reason: z.string().optional() })),
  'plan/amended': defineEvent(1, () => z.strictObject({ version: z.number().int().positive(), reason: z.string(), diff: z.unknown(), hash: z.string(), plan: z.unknown(), lint: z.array(lintFindingSchema).optional() })),
  'replan/started': defineEvent(1, () => z.strictObject({
    trigger: z.string(),
    progress: z.number(),
    mode: z.enum(['full', 'append']),
    /** The node that failed or reported the missed work. */
    nodeId: z.string().optional(),
  })),
  /** How a replan ended: a new plan version, the replan limit reached, or the planner failing. */
  'replan/finished': defineEvent(1, () => z.discriminatedUnion('outcome', [
    z.strictObject({ outcome: z.literal('amended'), version: z.number().int().positive() }),
    z.strictObject({ outcome: z.literal('gave-up'), reason: z.string() }),
    z.strictObject({ outcome: z.literal('failed'), error: z.string() }),
  ])),
} as const;
