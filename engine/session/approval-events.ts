import { z } from 'zod';
import { defineEvent } from './define-event.js';
import { APPROVAL_POLICIES } from './event-values.js';

/** The events of an approval: asked, granted, denied. */
export const APPROVAL_EVENTS = {
  'approval/requested': defineEvent(1, () => z.strictObject({
    toolCallId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    policy: z.enum(APPROVAL_POLICIES),
    reason: z.string().optional(),
    /** One line saying what the operation does, as the human was shown it. */
    summary: z.string().optional(),
  })),
  'approval/granted': defineEvent(1, () => z.strictObject({
    toolCallId: z.string(),
    by: z.string(),
    tool: z.string().optional(),
    /** The human answered "always": later calls of this tool in the run need no answer. */
    always: z.literal(true).optional(),
  })),
  'approval/denied': defineEvent(1, () => z.strictObject({ toolCallId: z.string(), by: z.string(), tool: z.string().optional(), reason: z.string().optional() })),
} as const;
