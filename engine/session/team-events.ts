import { z } from 'zod';
import { defineEvent } from './define-event.js';

/**
 * The events of team mode (`dagent team`): a lead node hands work to new nodes of the run's plan
 * (`delegate`), and the run controller answers each hand-off with the plan version that took it,
 * or why it did not.
 */
export const TEAM_EVENTS = {
  /** A node asked for a new node (the event's node is the delegator); the controller amends the plan with it. */
  'work/delegated': defineEvent(1, () =>
    z.strictObject({
      id: z.string(),
      title: z.string(),
      instructions: z.string(),
      kind: z.enum(['read', 'edit', 'agent']),
      reads: z.array(z.string()),
      writes: z.array(z.string()),
      dependsOn: z.array(z.string()),
    }),
  ),
  /** The controller's answer to one `work/delegated` (by its seq): the node was added to plan `planVersion`, or refused with `reason`. */
  'delegation/answered': defineEvent(1, () =>
    z.strictObject({
      delegationSeq: z.number().int().positive(),
      nodeId: z.string(),
      outcome: z.enum(['added', 'refused']),
      planVersion: z.number().int().positive().optional(),
      reason: z.string().optional(),
    }),
  ),
} as const;
