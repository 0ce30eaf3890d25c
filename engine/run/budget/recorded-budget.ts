import type { EventLog } from '../../session/event-log.js';
import type { RunBudget } from './run-budget.js';

/** The budget the run last recorded (`budget/set`), or undefined when it never had one. */
export async function recordedBudget(log: EventLog): Promise<RunBudget | undefined> {
  const latest = (await log.read({ types: ['budget/set'] })).at(-1);
  if (latest === undefined) return undefined;
  const { source: _source, ...caps } = latest.payload;
  return caps;
}
