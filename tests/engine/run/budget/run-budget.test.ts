import { describe, expect, it } from 'vitest';
import { budgetWayOn } from '../../../../engine/run/budget/budget-way-on.js';
import { budgetBreach, budgetPauseReason, capBelowSpend, effectiveBudget } from '../../../../engine/run/budget/run-budget.js';
import type { BudgetOutlook } from '../../../../engine/run/budget/suggested-caps.js';

/** The budget rules as pure functions: when a call is refused, which cap a run goes on with, and what the pause says. */

describe('budgetBreach', () => {
  it.each([
    { name: 'a call that fits', spent: { costUsd: 0.02, tokens: 1_000 }, estimate: { costUsd: 0.01, tokens: 500 }, budget: { maxCostUsd: 0.05 }, breach: undefined },
    { name: 'a call that lands exactly on the cap', spent: { costUsd: 0.04, tokens: 0 }, estimate: { costUsd: 0.01, tokens: 0 }, budget: { maxCostUsd: 0.05 }, breach: undefined },
    { name: 'a call that would cross the cost cap', spent: { costUsd: 0.045, tokens: 0 }, estimate: { costUsd: 0.01, tokens: 0 }, budget: { maxCostUsd: 0.05 }, breach: { measure: 'cost', spent: 0.045, estimate: 0.01, cap: 0.05 } },
    { name: 'a call that would cross the token cap', spent: { costUsd: 0, tokens: 9_000 }, estimate: { costUsd: 0, tokens: 2_000 }, budget: { maxTokens: 10_000 }, breach: { measure: 'tokens', spent: 9_000, estimate: 2_000, cap: 10_000 } },
    { name: 'both crossed: cost is named', spent: { costUsd: 1, tokens: 9_000 }, estimate: { costUsd: 1, tokens: 2_000 }, budget: { maxCostUsd: 1.5, maxTokens: 10_000 }, breach: { measure: 'cost', spent: 1, estimate: 1, cap: 1.5 } },
    { name: 'no caps', spent: { costUsd: 100, tokens: 1e9 }, estimate: { costUsd: 1, tokens: 1 }, budget: {}, breach: undefined },
  ])('$name', ({ spent, estimate, budget, breach }) => {
    expect(budgetBreach(spent, estimate, budget)).toEqual(breach);
  });
});

describe('effectiveBudget', () => {
  it.each([
    { name: 'none anywhere', flags: {}, recorded: undefined, config: undefined, expected: undefined },
    { name: 'the config', flags: {}, recorded: undefined, config: { maxCostUsd: 1 }, expected: { budget: { maxCostUsd: 1 }, source: 'config' } },
    { name: 'the recorded one over the config (a resume keeps its cap)', flags: {}, recorded: { maxCostUsd: 0.5 }, config: { maxCostUsd: 1 }, expected: { budget: { maxCostUsd: 0.5 }, source: 'recorded' } },
    { name: 'a flag over both, the other measure kept', flags: { maxCostUsd: 2 }, recorded: { maxCostUsd: 0.5, maxTokens: 10_000 }, config: undefined, expected: { budget: { maxCostUsd: 2, maxTokens: 10_000 }, source: 'flags' } },
  ])('$name', ({ flags, recorded, config, expected }) => {
    expect(effectiveBudget(flags, recorded, config)).toEqual(expected);
  });
});

describe('budgetPauseReason', () => {
  it("names whose budget, the spend, the cap and the refused call's estimate", () => {
    expect(budgetPauseReason({ measure: 'cost', spent: 0.0412, estimate: 0.0123, cap: 0.05 })).toBe("the run's budget is reached: spent $0.0412 of $0.0500; the next model call (about $0.0123) would cross it");
    expect(budgetPauseReason({ measure: 'tokens', spent: 9_000, estimate: 2_000, cap: 10_000 }, 'edit-a')).toBe("node edit-a's budget is reached: spent 9000 tokens of 10000 tokens; the next model call (about 2000 tokens) would cross it");
  });
});

describe('budgetWayOn', () => {
  /** Nothing spent, the first call (about 5 483 tokens) refused, three nodes to run. */
  const none = { costUsd: 0, tokens: 0 };
  const outlook: BudgetOutlook = { spent: none, refused: { measure: 'tokens', estimate: 5_483 }, perFinishedNode: undefined, nodesLeft: [none, none, none] };

  it("a node's own budget is raised in the plan, never by --max-cost, to a figure that takes it past the refused call", () => {
    // The node spent 1 200 tokens; its refused call needs about 5 483, and one more like it: 12 166 → 13 000.
    const line = budgetWayOn('r-1', 'edit-a', undefined, { ...outlook, pausedNode: { costUsd: 0, tokens: 1_200 } });
    expect(line).toBe("raise node edit-a's `budget` in the plan to at least `maxTokens: 13000` (`dagent edit r-1`, or export and import), `dagent approve r-1`, then `dagent resume r-1`");
    expect(line).not.toContain('--max-cost');
    const atCost = budgetWayOn('r-1', 'edit-a', undefined, { ...outlook, refused: { measure: 'cost', estimate: 0.02 }, pausedNode: { costUsd: 0.031, tokens: 9_000 } });
    expect(atCost).toContain('to at least `maxCostUsd: 0.071`');
  });

  it("the run's budget is raised by resume with a cap that takes the run further, in the measure it caps", () => {
    expect(budgetWayOn('r-1', null, undefined, outlook)).toBe('`dagent resume r-1 --max-cost USD` (or --max-tokens N) goes on under a higher cap');
    expect(budgetWayOn('r-1', null, { maxTokens: 100 }, outlook)).toBe('resume with a higher cap: dagent resume r-1 --max-tokens 22000');
  });
});

describe('caps given to a run that has spent', () => {
  it('must be above the spend: one at or below it says so, with one that holds', () => {
    expect(capBelowSpend({ maxTokens: 5 }, { costUsd: 0, tokens: 17_446 })).toBe('--max-tokens 5 is not above the 17446 tokens the run has spent: give more than that (e.g. --max-tokens 34892)');
    expect(capBelowSpend({ maxCostUsd: 0.01 }, { costUsd: 0.02, tokens: 0 })).toBe('--max-cost 0.01 is not above the $0.0200 the run has spent: give more than that (e.g. --max-cost 0.04)');
    expect(capBelowSpend({ maxTokens: 40_000, maxCostUsd: 1 }, { costUsd: 0.02, tokens: 17_446 })).toBeUndefined();
    // The run paused at its budget: the example is the cap its pause line suggests.
    expect(capBelowSpend({ maxTokens: 5 }, { costUsd: 0, tokens: 17_446 }, { maxTokens: 41_000 })).toBe('--max-tokens 5 is not above the 17446 tokens the run has spent: give more than that (e.g. --max-tokens 41000)');
  });
});

