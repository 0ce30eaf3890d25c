import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetGate } from '../../../../engine/run/budget/budget-gate.js';
import { budgetUse } from '../../../../engine/run/views/budget-use.js';
import { foldRunView } from '../../../../engine/run/views/run-view.js';
import { EventLog, createRun } from '../../../../engine/index.js';
import { openTempStore } from '../../../helpers/temp-store.js';

/**
 * The budget's fold: what a run spent is summed from its log, answers and compaction summaries
 * alike (whichever process wrote them), and a summary call is refused like any other.
 */

let log: EventLog;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  const temp = await openTempStore();
  cleanup = temp.cleanup;
  log = new EventLog(temp.store.db, (await createRun(temp.store.db, { task: 't', workspace: '/w', mode: 'plan' })).id);
});
afterEach(async () => cleanup());

const usage = (input: number, output: number) => ({ input, output, cacheHit: 0, reasoning: 0 });

/** An answer of node a ($0.03, 1 200 tokens) and a summary compacting its context ($0.02, 2 300 tokens). */
async function spendSoFar(): Promise<void> {
  await log.append({ type: 'assistant/message', nodeId: 'a', turn: 1, step: 1, payload: { content: 'ok', toolCalls: [], finishReason: 'stop', provider: 'p', model: 'big', usage: usage(1_000, 200), costUsd: 0.03 } });
  await log.append({ type: 'compaction/summary', nodeId: 'a', turn: 1, step: 1, payload: { compactionId: 'c-1', summary: 'S', usage: usage(2_000, 300), model: 'small', costUsd: 0.02, attempts: 1 } });
}

describe('BudgetGate', () => {
  it("counts a compaction summary's cost and tokens with the answers'", async () => {
    await spendSoFar();
    const gate = new BudgetGate({ log, budget: { maxCostUsd: 0.06 }, nodeBudget: () => undefined });
    // $0.05 spent: a $0.02 call would cross $0.06.
    const refused = await gate.admit({ nodeId: 'a', inputTokens: 100, outputTokens: 100, costUsd: 0.02 });
    expect(refused).toEqual({ admitted: false, reason: "the run's budget is reached: spent $0.0500 of $0.0600; the next model call (about $0.0200) would cross it" });

    const byTokens = new BudgetGate({ log, budget: { maxTokens: 4_000 }, nodeBudget: () => undefined });
    // 3 500 tokens spent: 400 more fit, 600 would not.
    const fits = await byTokens.admit({ nodeId: 'a', inputTokens: 300, outputTokens: 100, costUsd: 0 });
    expect(fits.admitted).toBe(true);
  });

  it('refuses a summary call that would cross the cap, and the log and the pause line say it was a summary', async () => {
    await spendSoFar();
    const reasons: string[] = [];
    const gate = new BudgetGate({ log, budget: { maxCostUsd: 0.06 }, nodeBudget: () => undefined, onReached: (reason) => reasons.push(reason) });
    const verdict = await gate.admit({ nodeId: 'a', inputTokens: 9_000, outputTokens: 2_000, costUsd: 0.029, call: 'summary' });

    const line = "the run's budget is reached: spent $0.0500 of $0.0600; the next model call (a summary compacting node a's context, about $0.0290) would cross it";
    expect(verdict).toEqual({ admitted: false, reason: line });
    expect(reasons).toEqual([line]);
    const [reached] = await log.read({ types: ['budget/reached'] });
    expect(reached).toMatchObject({ nodeId: 'a', payload: { scope: 'run', measure: 'cost', spent: 0.05, estimate: 0.029, cap: 0.06, call: 'summary' } });
  });

  it("a node's own budget counts the summaries of its context", async () => {
    await spendSoFar();
    const gate = new BudgetGate({ log, budget: undefined, nodeBudget: (id) => (id === 'a' ? { maxTokens: 3_600 } : undefined) });
    expect((await gate.admit({ nodeId: 'b', inputTokens: 3_000, outputTokens: 500, costUsd: 0 })).admitted).toBe(true);
    const verdict = await gate.admit({ nodeId: 'a', inputTokens: 100, outputTokens: 100, costUsd: 0 });
    expect(verdict).toMatchObject({ admitted: false, reason: expect.stringContaining("node a's budget is reached: spent 3500 tokens of 3600 tokens") as string });
  });
  it("gives the log's spend, the figure status shows, with the calls still running apart", async () => {
    await log.append({ type: 'budget/set', payload: { maxTokens: 5_000, source: 'flags' } });
    await spendSoFar();
    const gate = new BudgetGate({ log, budget: { maxTokens: 5_000 }, nodeBudget: () => undefined });
    // Node b's call is sent and not answered yet when node a asks: 3 500 logged + 1 000 running + 1 000 > 5 000.
    expect((await gate.admit({ nodeId: 'b', inputTokens: 900, outputTokens: 100, costUsd: 0 })).admitted).toBe(true);
    const refused = await gate.admit({ nodeId: 'a', inputTokens: 900, outputTokens: 100, costUsd: 0 });

    expect(refused).toEqual({ admitted: false, reason: "the run's budget is reached: spent 3500 tokens of 5000 tokens; with calls still running (about 1000 tokens), the next model call (about 1000 tokens) would cross it" });
    const [reached] = await log.read({ types: ['budget/reached'] });
    expect(reached).toMatchObject({ payload: { measure: 'tokens', spent: 3_500, inFlight: 1_000, estimate: 1_000, cap: 5_000 } });
    expect(budgetUse(foldRunView(log.runId, await log.read()))?.tokens?.spent).toBe(3_500);
  });
  it("once the run's calls settle, the pause line gives what the log holds: the running call's answer counted, or a stopped call named", async () => {
    await spendSoFar();
    const gate = new BudgetGate({ log, budget: { maxTokens: 5_000 }, nodeBudget: () => undefined });
    expect((await gate.admit({ nodeId: 'b', inputTokens: 900, outputTokens: 100, costUsd: 0 })).admitted).toBe(true);
    await gate.admit({ nodeId: 'a', inputTokens: 900, outputTokens: 100, costUsd: 0 });

    // Node b's call was stopped unanswered: it cost nothing the log knows, and it was what crossed the cap.
    expect(await gate.settledPause(0)).toEqual({ cause: 'budget', reason: "the run's budget is reached: spent 3500 tokens of 5000 tokens; with calls still running (about 1000 tokens), the next model call (about 1000 tokens) would cross it" });
    // Its answer came after all (1 600 tokens): the spend counts it, as status does.
    await log.append({ type: 'assistant/message', nodeId: 'b', turn: 1, step: 1, payload: { content: 'ok', toolCalls: [], finishReason: 'stop', provider: 'p', model: 'big', usage: usage(1_500, 100), costUsd: 0 } });
    expect(await gate.settledPause(0)).toEqual({ cause: 'budget', reason: "the run's budget is reached: spent 5100 tokens of 5000 tokens; the next model call (about 1000 tokens) would cross it" });
  });
});

describe('the run view (status, the dashboard)', () => {
  it("adds a summary's cost and tokens to its node and the run's totals, and keeps the node's model", async () => {
    await spendSoFar();
    const view = foldRunView(log.runId, await log.read());
    expect(view.totals).toMatchObject({ input: 3_000, output: 500, modelCalls: 2 });
    expect(view.totals.costUsd).toBeCloseTo(0.05, 12);
    expect(view.nodes.get('a')).toMatchObject({ costUsd: 0.05, model: 'p:big', modelCalls: 2 });
  });
});
