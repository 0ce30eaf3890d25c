import type { SessionEvent } from '../../session/event-types.js';
import type { Spend } from './run-budget.js';

/**
 * The events that record a model call's spend: a node's or the planner's answer
 * (`assistant/message`) and a compaction's summary (`compaction/summary`, its calls' usage and,
 * from v2, their cost priced with the model that wrote it). A budget, `status` and the dashboard
 * sum both.
 */
export const SPEND_EVENT_TYPES = ['assistant/message', 'compaction/summary'] as const;

export type SpendEvent = SessionEvent<(typeof SPEND_EVENT_TYPES)[number]>;

export function isSpendEvent(event: SessionEvent): event is SpendEvent {
  return event.type === 'assistant/message' || event.type === 'compaction/summary';
}

/** What one spend event cost: its USD (0 when unpriced) and its input + output tokens. */
export function spendOf(event: SpendEvent): Spend {
  const usage = event.payload.usage;
  return { costUsd: event.payload.costUsd ?? 0, tokens: usage === undefined ? 0 : usage.input + usage.output };
}
