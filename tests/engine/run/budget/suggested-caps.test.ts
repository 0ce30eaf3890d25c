import { describe, expect, it } from 'vitest';
import { roundUpReadable, suggestedCaps, type BudgetOutlook } from '../../../../engine/run/budget/suggested-caps.js';

/**
 * The cap `resume` is told to take: room for what the run spent, the call its budget refused, and
 * the nodes it has left at the pace of those that finished; never merely twice the cap.
 */

const tokens = (spent: number, estimate: number, perNode: number | undefined, nodesLeft: readonly number[]): BudgetOutlook => ({
  spent: { costUsd: 0, tokens: spent },
  refused: { measure: 'tokens', estimate },
  perFinishedNode: perNode === undefined ? undefined : { costUsd: 0, tokens: perNode },
  nodesLeft: nodesLeft.map((spentByNode) => ({ costUsd: 0, tokens: spentByNode })),
});

/** $0.0712 and 30 000 tokens spent, a $0.0132 call refused, nodes finished at $0.03 and 10 000 tokens, one left that spent $0.005 and 2 000. */
const inMoney: BudgetOutlook = { spent: { costUsd: 0.0712, tokens: 30_000 }, refused: { measure: 'cost', estimate: 0.0132 }, perFinishedNode: { costUsd: 0.03, tokens: 10_000 }, nodesLeft: [{ costUsd: 0.005, tokens: 2_000 }] };

describe('suggestedCaps', () => {
  it.each([
    { name: 'capped at 100, the first call (~5 483) refused, three nodes to run: a call each, and room for the last', budget: { maxTokens: 100 }, outlook: tokens(0, 5_483, undefined, [0, 0, 0]), caps: { maxTokens: 22_000 } },
    { name: 'two nodes finished at 13 300 each, the last one refused before it spent anything', budget: { maxTokens: 30_000 }, outlook: tokens(26_610, 5_533, 13_300, [0]), caps: { maxTokens: 46_000 } },
    { name: 'a node left that spent near the average already still needs a call', budget: { maxTokens: 20_000 }, outlook: tokens(17_676, 5_529, 9_000, [8_000]), caps: { maxTokens: 29_000 } },
    { name: 'crossed only with calls then in flight, stopped unanswered: the cap and the call', budget: { maxTokens: 5_000 }, outlook: tokens(3_500, 1_000, undefined, []), caps: { maxTokens: 6_000 } },
    { name: 'in money, at the pace of the finished nodes', budget: { maxCostUsd: 0.08 }, outlook: inMoney, caps: { maxCostUsd: 0.11 } },
    { name: 'the other cap kept when it holds what is left', budget: { maxCostUsd: 0.08, maxTokens: 1_000_000 }, outlook: inMoney, caps: { maxCostUsd: 0.11 } },
    { name: 'the other cap raised too when it would not hold it', budget: { maxCostUsd: 0.08, maxTokens: 35_000 }, outlook: inMoney, caps: { maxCostUsd: 0.11, maxTokens: 38_000 } },
  ])('$name', ({ budget, outlook, caps }) => {
    expect(suggestedCaps(budget, outlook)).toEqual(caps);
  });
});

describe('roundUpReadable', () => {
  it.each([
    [21_932, 22_000],
    [5_483, 5_500],
    [100, 100],
    [0.0844, 0.085],
    [0.16, 0.16],
    [0.1094, 0.11],
    [0, 0],
  ])('%s → %s', (amount, readable) => {
    expect(roundUpReadable(amount)).toBe(readable);
  });
});
