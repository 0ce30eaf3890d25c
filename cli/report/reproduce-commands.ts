import { quote } from 'shell-quote';
import type { RunRecord } from '../../engine/index.js';

/**
 * The commands that show the run again and run it again: its plan, change and log, the same plan
 * run afresh (exported, planned from the file, approved and run), and the task planned anew with
 * the run's model; a react run (no plan to show) its change, its log and its task run again; a
 * team run its plan, change and log, and its task run again as a team.
 */
export function reproduceCommands(dagent: string, run: RunRecord): string[] {
  const base = `${dagent} -w ${quote([run.workspace])}`;
  const model = typeof run.config.model === 'string' ? ` --model ${quote([run.config.model])}` : '';
  const seen = [`${base} diff ${run.id}`, `${base} log ${run.id}`];
  if (run.mode === 'react') return [...seen, `${base}${model} react ${quote([run.task])}`];
  const lines = [`${base} show ${run.id}`, ...seen];
  // A team's plan holds its lead and the nodes it delegated: run from a file, the lead's delegations
  // are refused as taken. The team runs again from its task.
  if (run.mode === 'team') return [...lines, `${base}${model} team ${quote([run.task])}`];
  if (run.planVersion !== null) lines.push(`${base} export ${run.id} plan.json && ${base}${model} plan --from plan.json --yes`);
  return [...lines, `${base}${model} plan ${quote([run.task])}`];
}
