import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactSession, type SessionEvent } from '../../../engine/index.js';
import type { SummaryCallEstimate, SummaryCallGate } from '../../../engine/compaction/summarizer.js';
import { appendToolTurn, filler, openNode, scriptedSummarizer, type NodeFixture } from './fixtures.js';

/**
 * A compaction summary under a run's budget: each summary call is weighed before it is sent, like
 * a node's own call, and the summary records what its calls cost, priced with the model that wrote it.
 */

let node: NodeFixture;
beforeEach(async () => {
  node = await openNode();
  await node.session.append({ type: 'user/message', payload: { content: 'Rename area() to getArea() in src/.', source: 'instruction' } });
  for (let index = 1; index <= 6; index += 1) await appendToolTurn(node.session, { args: { path: `src/f${index}.ts` }, output: filler(50) });
});
afterEach(async () => node.cleanup());

const SUMMARY = '## Primary request and intent\nRename area(). Files: src/f1.ts src/f2.ts src/f3.ts.';
/** $1 per million input tokens, $10 per million output tokens. */
const price = (usage: { input: number; output: number }): number => (usage.input * 1 + usage.output * 10) / 1_000_000;

/** A gate that records what it was asked and admits (or refuses with `refusal`); `settled` counts settled calls. */
function recordingGate(refusal?: string): SummaryCallGate & { asked: SummaryCallEstimate[]; settled: number } {
  const gate = {
    asked: [] as SummaryCallEstimate[],
    settled: 0,
    admit: async (call: SummaryCallEstimate) => {
      gate.asked.push(call);
      if (refusal !== undefined) return { admitted: false as const, reason: refusal };
      return { admitted: true as const, settle: () => void (gate.settled += 1) };
    },
  };
  return gate;
}

describe('a compaction summary under a budget', () => {
  it('is weighed before it is sent (its request and maximum output, at the summarizer price), and records its cost and model', async () => {
    const gate = recordingGate();
    const summarize = scriptedSummarizer(SUMMARY);
    const result = await compactSession(node.session, { trigger: 'manual', window: 200_000, summarize, model: 'small-one', price, gate, signal: new AbortController().signal, createId: () => 'c-1', pruneMinTokens: Number.POSITIVE_INFINITY });

    expect(result.outcome).toBe('committed');
    expect(gate.asked).toHaveLength(1);
    const [asked] = gate.asked;
    expect(asked).toMatchObject({ nodeId: 'edit-a', call: 'summary' });
    expect(asked!.inputTokens).toBeGreaterThan(node.session.messageTokens() / 2);
    expect(asked!.outputTokens).toBeGreaterThan(0);
    expect(asked!.costUsd).toBeCloseTo(price({ input: asked!.inputTokens, output: asked!.outputTokens }), 12);
    const [summary] = (await node.log.read({ types: ['compaction/summary'] })) as SessionEvent<'compaction/summary'>[];
    // The scripted summarizer reports 100 in, 10 out.
    expect(summary!.payload).toMatchObject({ model: 'small-one', usage: { input: 100, output: 10 }, costUsd: price({ input: 100, output: 10 }) });
    expect(gate.settled).toBe(1);
  });

  it('is not sent when the budget refuses it: the compaction fails with the reason and the surface stays as it was', async () => {
    const gate = recordingGate("the run's budget is reached");
    const summarize = scriptedSummarizer(SUMMARY);
    const before = node.session.deriveMessages().map((message) => message.seq);
    const result = await compactSession(node.session, { trigger: 'threshold', window: 200_000, summarize, gate, signal: new AbortController().signal, createId: () => 'c-1', pruneMinTokens: Number.POSITIVE_INFINITY });

    expect(summarize.requests).toHaveLength(0);
    expect(result).toMatchObject({ outcome: 'failed', error: "the run's budget is reached", attempts: 0 });
    expect(await node.log.read({ types: ['compaction/summary'] })).toEqual([]);
    expect(node.session.deriveMessages().map((message) => message.seq)).toEqual(before);
  });
});
