import { NODE_KINDS } from '../../plan/node-kinds.js';
import type { PlanNodeKind } from '../../plan/plan-schema.js';
import { budgetWayOn } from '../budget/budget-way-on.js';
import type { Spend } from '../budget/run-budget.js';
import type { BudgetOutlook } from '../budget/suggested-caps.js';
import type { NodeView, RunView } from './run-view-types.js';

/**
 * What a run's log tells of the work it has left, for the cap `resume` is suggested: its spend,
 * the refused call, the average spend of its finished nodes (those that called a model in this
 * run: a reused result spent nothing here), and the spend so far of each node that runs a model
 * and has still to finish. Pure.
 */
export function budgetOutlook(view: RunView): BudgetOutlook {
  const nodes = view.order.flatMap((id) => view.nodes.get(id) ?? []);
  const finished = nodes.filter((node) => node.status === 'succeeded' && node.modelCalls > 0);
  const left = nodes.filter((node) => node.status !== 'succeeded' && node.status !== 'skipped' && runsModel(node));
  const paused = view.pausedAtNodeBudget === null || view.pausedAtNodeBudget === undefined ? undefined : view.nodes.get(view.pausedAtNodeBudget);
  return {
    spent: { costUsd: view.totals.costUsd, tokens: view.totals.input + view.totals.output },
    refused: view.refusedCall === null ? undefined : { measure: view.refusedCall.measure, estimate: view.refusedCall.estimate },
    perFinishedNode: finished.length === 0 ? undefined : average(finished.map(spendOf)),
    nodesLeft: left.map(spendOf),
    ...(paused === undefined ? {} : { pausedNode: spendOf(paused) }),
  };
}

/** How a run paused at a budget goes on (`budgetWayOn`), with the caps its log says can take it further. */
export function pausedBudgetWayOn(view: RunView): string {
  return budgetWayOn(view.runId, view.pausedAtNodeBudget, view.budget, budgetOutlook(view));
}

function runsModel(node: NodeView): boolean {
  return node.kind in NODE_KINDS ? NODE_KINDS[node.kind as PlanNodeKind].runsModel : true;
}

function spendOf(node: NodeView): Spend {
  return { costUsd: node.costUsd, tokens: node.tokens.input + node.tokens.output };
}

function average(spends: readonly Spend[]): Spend {
  const sum = spends.reduce((total, spend) => ({ costUsd: total.costUsd + spend.costUsd, tokens: total.tokens + spend.tokens }), { costUsd: 0, tokens: 0 });
  return { costUsd: sum.costUsd / spends.length, tokens: sum.tokens / spends.length };
}
