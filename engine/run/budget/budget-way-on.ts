import { hasCaps, type RunBudget } from './run-budget.js';
import { suggestedCaps, suggestedNodeBudget, type BudgetOutlook } from './suggested-caps.js';

/**
 * How a run paused at a budget goes on, for the run's last line, `status` and the dashboard. A
 * node's own plan budget (`nodeId`) is raised in the plan, not by a flag: edit it, approve the new
 * version, resume (to at least `suggestedNodeBudget`). The run's budget is raised by `resume --max-cost`/`--max-tokens`, with the caps
 * `suggestedCaps` gives for what the log says is left (`outlook`).
 */
export function budgetWayOn(runId: string, nodeId: string | null | undefined, budget: RunBudget | null | undefined, outlook: BudgetOutlook): string {
  if (nodeId !== null && nodeId !== undefined) {
    const figure = suggestedNodeBudget(outlook);
    const to = figure === undefined ? '' : ` to at least \`${figure}\``;
    return `raise node ${nodeId}'s \`budget\` in the plan${to} (\`dagent edit ${runId}\`, or export and import), \`dagent approve ${runId}\`, then \`dagent resume ${runId}\``;
  }
  const caps = budget ?? undefined;
  return hasCaps(caps) ? `resume with a higher cap: ${resumeWithMore(runId, suggestedCaps(caps, outlook))}` : `\`dagent resume ${runId} --max-cost USD\` (or --max-tokens N) goes on under a higher cap`;
}

/** `dagent resume R --max-tokens 34000`: the command that goes on past the run's budget. */
function resumeWithMore(runId: string, caps: RunBudget): string {
  const flags = [...(caps.maxCostUsd === undefined ? [] : [`--max-cost ${caps.maxCostUsd}`]), ...(caps.maxTokens === undefined ? [] : [`--max-tokens ${caps.maxTokens}`])];
  return [`dagent resume ${runId}`, ...flags].join(' ');
}
