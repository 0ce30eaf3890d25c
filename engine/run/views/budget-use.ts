import { formatBudgetAmount, type RunBudget, type Spend } from '../budget/run-budget.js';
import type { NodeView, RunView } from './run-view-types.js';

/** One measure of a budget: what was spent of it and its cap. */
export interface BudgetMeasureUse {
  readonly spent: number;
  readonly cap: number;
}

/** What a run (or a node) spent against its budget, as `status` and the dashboard show it. */
export interface BudgetUse {
  readonly cost?: BudgetMeasureUse;
  readonly tokens?: BudgetMeasureUse;
  /** Both measures of the spend, capped or not. */
  readonly spent: Spend;
}

/**
 * Spend against the run's recorded budget: the run's totals (every model call in the log, the sum
 * a budget is held to) beside its caps; undefined without a budget. Pure.
 */
export function budgetUse(view: RunView): BudgetUse | undefined {
  return view.budget === null ? undefined : useOf(view.budget, { costUsd: view.totals.costUsd, tokens: view.totals.input + view.totals.output });
}

/** Spend against a node's own plan `budget`: its calls over all its attempts; undefined when it has none. Pure. */
export function nodeBudgetUse(node: NodeView): BudgetUse | undefined {
  return node.budget === null ? undefined : useOf(node.budget, { costUsd: node.costUsd, tokens: node.tokens.input + node.tokens.output });
}

/**
 * `$0.0412 of $0.0500 (82%) · 17676 of 20000 tokens (88%)`: each capped measure, in the exact
 * figures a budget's pause line gives, so the two cannot read as different spends.
 */
export function budgetUseText(use: BudgetUse): string {
  const share = (measure: BudgetMeasureUse): string => `${Math.round((measure.spent / measure.cap) * 100)}%`;
  return [
    ...(use.cost === undefined ? [] : [`${formatBudgetAmount('cost', use.cost.spent)} of ${formatBudgetAmount('cost', use.cost.cap)} (${share(use.cost)})`]),
    ...(use.tokens === undefined ? [] : [`${Math.round(use.tokens.spent)} of ${formatBudgetAmount('tokens', use.tokens.cap)} (${share(use.tokens)})`]),
  ].join(' · ');
}

/** `{ maxCostUsd, maxTokens, spentUsd, spentTokens }`, the budget of `status --json` (the run's and a node's). */
export function budgetUseJson(use: BudgetUse): { readonly maxCostUsd?: number; readonly maxTokens?: number; readonly spentUsd: number; readonly spentTokens: number } {
  return {
    ...(use.cost === undefined ? {} : { maxCostUsd: use.cost.cap }),
    ...(use.tokens === undefined ? {} : { maxTokens: use.tokens.cap }),
    spentUsd: use.spent.costUsd,
    spentTokens: use.spent.tokens,
  };
}

function useOf(budget: RunBudget, spent: Spend): BudgetUse {
  return {
    ...(budget.maxCostUsd === undefined ? {} : { cost: { spent: spent.costUsd, cap: budget.maxCostUsd } }),
    ...(budget.maxTokens === undefined ? {} : { tokens: { spent: spent.tokens, cap: budget.maxTokens } }),
    spent,
  };
}
