import type { EventLog } from '../../session/event-log.js';
import type { SessionEvent } from '../../session/event-types.js';
import type { RunBudget } from './run-budget.js';

/** The budget the run last recorded (`budget/set`), or undefined when it never had one. */
export async function recordedBudget(log: EventLog): Promise<RunBudget | undefined> {
  const latest = (await log.read({ types: ['budget/set'] })).at(-1);
  return latest === undefined ? undefined : budgetOf(latest);
}

/** The caps a `budget/set` records, without where they came from. Pure. */
export function budgetOf(event: SessionEvent<'budget/set'>): RunBudget {
  const { source: _source, ...caps } = event.payload;
  return caps;
}
