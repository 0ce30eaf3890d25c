import type { BudgetBreach, RunBudget, Spend } from './run-budget.js';

/** What the log tells of the work a run paused at its budget has left: what a higher cap must cover. */
export interface BudgetOutlook {
  /** What the run has spent (the log's sum). */
  readonly spent: Spend;
  /** The call the budget refused: its estimate, in the measure whose cap it would cross; undefined when unknown. */
  readonly refused: { readonly measure: BudgetBreach['measure']; readonly estimate: number } | undefined;
  /** The average spend of the nodes that finished, over their model calls; undefined before any has. */
  readonly perFinishedNode: Spend | undefined;
  /** What each node that runs a model and has still to finish (the refused call's among them) has spent so far. */
  readonly nodesLeft: readonly Spend[];
  /** What the node whose own plan budget was reached has spent over its attempts, when that is what paused the run. */
  readonly pausedNode?: Spend;
}

/**
 * The caps that take a paused run further, for the flags of `resume`. Per measure the run caps:
 * what it spent, plus the refused call's estimate (a call is let through only when its estimate
 * fits, so the last one needs that much room), plus for each node left what the finished nodes
 * spent on average less what it spent already, and at least one call like the refused one; rounded
 * up to two significant figures. The measure whose cap was crossed is always raised; another is
 * given only when its cap would not hold that much. Pure.
 */
export function suggestedCaps(budget: RunBudget, outlook: BudgetOutlook): RunBudget {
  const suggest = (measure: BudgetBreach['measure'], cap: number | undefined): number | undefined => {
    if (cap === undefined) return undefined;
    const of = (spend: Spend): number => (measure === 'cost' ? spend.costUsd : spend.tokens);
    const refused = outlook.refused?.measure === measure ? outlook.refused.estimate : 0;
    const perNode = outlook.perFinishedNode === undefined ? 0 : of(outlook.perFinishedNode);
    const left = outlook.nodesLeft.reduce((sum, node) => sum + Math.max(refused, perNode - of(node)), 0);
    const needed = of(outlook.spent) + refused + left;
    if (outlook.refused?.measure !== measure) return needed > cap ? roundUpReadable(needed) : undefined;
    // The calls in flight at the refusal, stopped unanswered, may have been what crossed the cap.
    return roundUpReadable(needed > cap ? needed : cap + refused);
  };
  const maxCostUsd = suggest('cost', budget.maxCostUsd);
  const maxTokens = suggest('tokens', budget.maxTokens);
  return { ...(maxCostUsd === undefined ? {} : { maxCostUsd }), ...(maxTokens === undefined ? {} : { maxTokens }) };
}

/**
 * The plan budget that takes a node paused at its own budget further, as its field reads
 * (`maxTokens: 12000`, `maxCostUsd: 0.05`), in the measure of the refused call: what the node
 * spent, the refused call's estimate, and what the finished nodes spent on average less what it
 * spent already, or one more call like the refused one; rounded up as `suggestedCaps` does.
 * Undefined when the refused call is unknown. Pure.
 */
export function suggestedNodeBudget(outlook: BudgetOutlook): string | undefined {
  const { refused, pausedNode } = outlook;
  if (refused === undefined || pausedNode === undefined) return undefined;
  const of = (spend: Spend): number => (refused.measure === 'cost' ? spend.costUsd : spend.tokens);
  const perNode = outlook.perFinishedNode === undefined ? 0 : of(outlook.perFinishedNode);
  const needed = roundUpReadable(of(pausedNode) + refused.estimate + Math.max(refused.estimate, perNode - of(pausedNode)));
  return refused.measure === 'cost' ? `maxCostUsd: ${needed}` : `maxTokens: ${needed}`;
}

/** `16449` → `17000`, `0.0844` → `0.085`: rounded up to two significant figures, a figure to type. Pure. */
export function roundUpReadable(amount: number): number {
  if (amount <= 0) return 0;
  const step = 10 ** (Math.floor(Math.log10(amount)) - 1);
  // toPrecision drops the float noise of the division (0.16 / 0.01 is 16.000000000000004).
  return Number((Math.ceil(Number((amount / step).toPrecision(12))) * step).toPrecision(2));
}
