import { z } from 'zod';
import { defineEvent } from './define-event.js';

/** Small-model routing (config `smallModel`): which model a node was sent to, and why. */
export const ROUTING_EVENTS = {
  /**
   * A node attempt runs on the small model instead of `instead` (the run's model): the plan marks
   * it `simple` and it names no model of its own. Appended before the attempt's first call.
   */
  'model/routed': defineEvent(1, () => z.strictObject({ model: z.string(), instead: z.string(), reason: z.enum(['simple']) })),
  /**
   * The run's routing from here on, as a `run` or `resume` decided it (`--no-routing`, `--routing`,
   * else as recorded before): `enabled`, and the small model it routes to (config `smallModel` of
   * that process), if any. A `dagent worker` routes the run's nodes by it, not by its own config.
   */
  'routing/set': defineEvent(1, () => z.strictObject({ enabled: z.boolean(), smallModel: z.string().optional() })),
} as const;
