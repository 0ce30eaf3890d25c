import type { SessionEvent } from '../../session/event-types.js';
import { updateNode } from './node-view.js';
import type { RunView, TokenTotals } from './run-view-types.js';

/**
 * What resume and reuse saved, per node and for the run: a node whose result a new plan version
 * kept (`node/reused`) saves what its earlier attempt cost; a node that went on from its last step
 * (`step/resumed`) saves its completed model calls.
 */
export function reduceSavedWork(view: RunView, event: SessionEvent<'node/reused' | 'step/resumed'>): RunView {
  const { saved, savedCostUsd } = event.payload;
  const modelCalls = event.payload.modelCalls;
  const totals = view.saved;
  const withTotals: RunView = {
    ...view,
    saved: {
      tokens: addTokens(totals.tokens, saved),
      costUsd: totals.costUsd + savedCostUsd,
      modelCalls: totals.modelCalls + modelCalls,
      reusedNodes: totals.reusedNodes + (event.type === 'node/reused' ? 1 : 0),
      resumedNodes: totals.resumedNodes + (event.type === 'step/resumed' ? 1 : 0),
    },
  };
  return updateNode(withTotals, event, (node) => ({
    ...node,
    ...(event.type === 'node/reused' ? { reused: true } : { resumedFromStep: event.payload.fromStep }),
    saved: addTokens(node.saved, saved),
    savedCostUsd: node.savedCostUsd + savedCostUsd,
  }));
}

function addTokens(a: TokenTotals, b: TokenTotals): TokenTotals {
  return { input: a.input + b.input, output: a.output + b.output, cacheHit: a.cacheHit + b.cacheHit, reasoning: a.reasoning + b.reasoning };
}
