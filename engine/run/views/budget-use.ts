import type { RunView } from './run-view-types.js';

/** One measure of a budget: what the run spent of it and its cap. */
export interface BudgetMeasureUse {
  readonly spent: number;
  readonly cap: number;
}

/** What a run spent against its budget, as `status` and the dashboard show it; undefined without a budget. */
export interface BudgetUse {
  readonly cost?: BudgetMeasureUse;
  readonly tokens?: BudgetMeasureUse;
}

/** Spend against the recorded budget: the run's totals (every model call in the log) beside its caps. Pure. */
export function budgetUse(view: RunView): BudgetUse | undefined {
  const { budget } = view;
  if (budget === null) return undefined;
  const tokens = view.totals.input + view.totals.output;
  return {
    ...(budget.maxCostUsd === undefined ? {} : { cost: { spent: view.totals.costUsd, cap: budget.maxCostUsd } }),
    ...(budget.maxTokens === undefined ? {} : { tokens: { spent: tokens, cap: budget.maxTokens } }),
  };
}
