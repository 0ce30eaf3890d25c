import { z } from 'zod';
import { defineEvent } from './define-event.js';

/**
 * The events by which a person steers a running node from outside its process (`dagent say`,
 * `dagent pause`, `dagent resume --node`, the dashboard): each is written to the shared log, and
 * the node's agent heeds it at its next step boundary (`NodeSteering`).
 */
export const STEERING_EVENTS = {
  /** A word for the node: at its next step it becomes a `user/message` (source `user`) whose `sourceEventSeqs` name this event. */
  'node/told': defineEvent(1, () => z.strictObject({ content: z.string().min(1), by: z.string().optional() })),
  /** Stop the node at its next step boundary, until a `node/resume-requested`. */
  'node/pause-requested': defineEvent(1, () => z.strictObject({ by: z.string().optional() })),
  /** The node reached a step boundary and waits for a `node/resume-requested`. */
  'node/paused': defineEvent(1, () => z.strictObject({})),
  /** Let a paused (or pausing) node go on. */
  'node/resume-requested': defineEvent(1, () => z.strictObject({ by: z.string().optional() })),
} as const;
