/** A spending cap: USD and/or tokens (input + output) over model calls; an absent field is no cap. */
export interface RunBudget {
  readonly maxCostUsd?: number;
  readonly maxTokens?: number;
}

/** What was spent, or what one call is estimated to spend. */
export interface Spend {
  readonly costUsd: number;
  readonly tokens: number;
}

export const NO_SPEND: Spend = { costUsd: 0, tokens: 0 };

/** The cap a call would cross: what was spent before it, its estimate, and the cap, in the cap's measure. */
export interface BudgetBreach {
  readonly measure: 'cost' | 'tokens';
  /** What the log says was spent: the figure `status` shows. */
  readonly spent: number;
  readonly estimate: number;
  readonly cap: number;
  /** The estimates of calls admitted but not answered yet, which the cap counted too; absent: none. */
  readonly inFlight?: number;
}

export function hasCaps(budget: RunBudget | undefined): budget is RunBudget {
  return budget !== undefined && (budget.maxCostUsd !== undefined || budget.maxTokens !== undefined);
}

/**
 * Whether a call estimated at `estimate`, after `spent`, would cross `budget`. Pure. A call is
 * refused when spent + estimate exceeds a cap, so what a run spends passes its cap by at most the
 * error of the estimate that let the last call through. Cost first: it is the cap users set most.
 */
export function budgetBreach(spent: Spend, estimate: Spend, budget: RunBudget): BudgetBreach | undefined {
  if (budget.maxCostUsd !== undefined && spent.costUsd + estimate.costUsd > budget.maxCostUsd) {
    return { measure: 'cost', spent: spent.costUsd, estimate: estimate.costUsd, cap: budget.maxCostUsd };
  }
  if (budget.maxTokens !== undefined && spent.tokens + estimate.tokens > budget.maxTokens) {
    return { measure: 'tokens', spent: spent.tokens, estimate: estimate.tokens, cap: budget.maxTokens };
  }
  return undefined;
}

/** `$0.0412` below a dollar, `$12.50` above: precise enough to compare a spend with its cap. */
export function formatBudgetUsd(usd: number): string {
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** One measure's amount as a budget line says it: `$0.0412` or `41200 tokens`. */
export function formatBudgetAmount(measure: BudgetBreach['measure'], amount: number): string {
  return measure === 'cost' ? formatBudgetUsd(amount) : `${Math.round(amount)} tokens`;
}

/**
 * Why the run paused, in one line: whose budget, what was spent of it, and the refused call's
 * estimate. `nodeId` for a node's own plan budget; `call` `summary` when the refused call was a
 * compaction summary (of `summaryOf`'s context).
 */
export function budgetPauseReason(breach: BudgetBreach, nodeId?: string, call?: { readonly kind: 'summary'; readonly summaryOf: string | null }): string {
  const whose = nodeId === undefined ? "the run's budget" : `node ${nodeId}'s budget`;
  const spent = formatBudgetAmount(breach.measure, breach.spent);
  const cap = formatBudgetAmount(breach.measure, breach.cap);
  const what = call === undefined ? '' : `a summary compacting ${call.summaryOf === null ? 'the context' : `node ${call.summaryOf}'s context`}, `;
  const running = breach.inFlight === undefined ? '' : `with calls still running (about ${formatBudgetAmount(breach.measure, breach.inFlight)}), `;
  return `${whose} is reached: spent ${spent} of ${cap}; ${running}the next model call (${what}about ${formatBudgetAmount(breach.measure, breach.estimate)}) would cross it`;
}

/** The pause a `budget/reached` event stands for: its line, and the node when it was a node's own budget. */
export function budgetPause(event: { readonly nodeId: string | null; readonly payload: BudgetBreach & { readonly scope: 'run' | 'node'; readonly call?: 'summary' } }): { readonly cause: 'budget'; readonly reason: string; readonly nodeId?: string } {
  const nodeId = event.payload.scope === 'node' ? (event.nodeId ?? undefined) : undefined;
  const call = event.payload.call === undefined ? undefined : { kind: event.payload.call, summaryOf: event.nodeId };
  return { cause: 'budget', reason: budgetPauseReason(event.payload, nodeId, call), ...(nodeId === undefined ? {} : { nodeId }) };
}

/**
 * Why caps given for a run that has spent already cannot hold (a cap at or below the spend pauses
 * the run before its next call): the cap and the spend in words, with the cap `suggested` for what
 * is left (`suggestedCaps`; twice the spend when it has none), or undefined when they can hold.
 */
export function capBelowSpend(caps: RunBudget, spent: Spend, suggested: RunBudget = {}): string | undefined {
  if (caps.maxTokens !== undefined && caps.maxTokens <= spent.tokens) return `--max-tokens ${caps.maxTokens} is not above the ${spent.tokens} tokens the run has spent: give more than that (e.g. --max-tokens ${suggested.maxTokens ?? spent.tokens * 2})`;
  if (caps.maxCostUsd !== undefined && caps.maxCostUsd <= spent.costUsd) return `--max-cost ${caps.maxCostUsd} is not above the ${formatBudgetUsd(spent.costUsd)} the run has spent: give more than that (e.g. --max-cost ${suggested.maxCostUsd ?? Number((spent.costUsd * 2).toPrecision(3))})`;
  return undefined;
}

/**
 * The budget a run goes on with. Per measure: a flag of this command, else the budget the run
 * recorded before (a resume keeps its cap), else the config's `budget`.
 */
export function effectiveBudget(flags: RunBudget, recorded: RunBudget | undefined, config: RunBudget | undefined): { readonly budget: RunBudget; readonly source: 'flags' | 'config' | 'recorded' } | undefined {
  const base = hasCaps(recorded) ? recorded : config;
  const budget = { ...pick(base), ...pick(flags) };
  if (!hasCaps(budget)) return undefined;
  const source = hasCaps(flags) ? 'flags' : hasCaps(recorded) ? 'recorded' : 'config';
  return { budget, source };
}

function pick(budget: RunBudget | undefined): RunBudget {
  if (budget === undefined) return {};
  return { ...(budget.maxCostUsd === undefined ? {} : { maxCostUsd: budget.maxCostUsd }), ...(budget.maxTokens === undefined ? {} : { maxTokens: budget.maxTokens }) };
}
