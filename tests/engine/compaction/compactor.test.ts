import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, compactSession, createCompactor, type AgentCompactor, type SessionEvent } from '../../../engine/index.js';
import type { CompactorOptions } from '../../../engine/compaction/compactor.js';
import { appendToolTurn, filler, openNode, pathListingSummarizer, scriptedSummarizer, type NodeFixture } from './fixtures.js';

let node: NodeFixture;
let ids: number;
beforeEach(async () => {
  node = await openNode();
  ids = 0;
});
afterEach(async () => node.cleanup());

const signal = new AbortController().signal;
const prompt = { system: 'You are a careful engineer.', tools: [] };
/** 8K window: threshold 5,000, soft watermark 3,500, prune target 3,000. */
const WINDOW = 8_000;

function compactorOptions(overrides: Partial<CompactorOptions> = {}): CompactorOptions {
  return { window: WINDOW, summarize: pathListingSummarizer(), createId: () => `c-${++ids}`, pruneMinTokens: Number.POSITIVE_INFINITY, ...overrides };
}

let turnIndex = 0;
async function growUntil(tokens: number, turnTokens = 300): Promise<void> {
  if (node.session.instruction() === undefined) {
    await node.session.append({ type: 'user/message', payload: { content: 'Rename area().', source: 'instruction' } });
  }
  while (node.session.messageTokens() < tokens) {
    turnIndex += 1;
    await appendToolTurn(node.session, { args: { path: `src/f${turnIndex}.ts` }, output: filler(turnTokens) });
  }
}

async function compactionEvents(): Promise<[string, unknown][]> {
  const events = await node.log.read({ types: ['compaction/start', 'compaction/summary', 'compaction/end'] });
  return events.map((event) => [event.type, 'outcome' in event.payload ? event.payload.outcome : event.payload.compactionId]);
}

describe('createCompactor', () => {
  it('reports the thresholds of its window', () => {
    const compactor = createCompactor(compactorOptions());
    expect([compactor.threshold, compactor.softWatermark]).toEqual([5_000, 3_500]);
  });

  it('does nothing below the soft watermark', async () => {
    const summarize = pathListingSummarizer();
    const compactor = createCompactor(compactorOptions({ summarize }));
    await growUntil(2_000);
    expect(await compactor.preStep(node.session, prompt, signal)).toMatchObject({ verdict: 'none' });
    expect(summarize.requests).toHaveLength(0);
  });

  it('commits a background candidate at the threshold when the surface is unchanged', async () => {
    const summarize = pathListingSummarizer();
    const compactor = createCompactor(compactorOptions({ summarize }));
    await growUntil(3_500);
    const soft = await compactor.preStep(node.session, prompt, signal);
    expect(soft).toMatchObject({ verdict: 'background', candidate: { status: 'computing' } });
    // While the candidate is pending, later steps wait.
    expect(await compactor.preStep(node.session, prompt, signal)).toMatchObject({ verdict: 'none' });
    await growUntil(5_000);
    const now = await compactor.preStep(node.session, prompt, signal);
    expect(now).toMatchObject({ verdict: 'now', result: { outcome: 'committed', trigger: 'background', compactionId: 'c-1' } });
    expect(summarize.requests).toHaveLength(1);
    expect(await compactionEvents()).toEqual([
      ['compaction/start', 'c-1'],
      ['compaction/summary', 'c-1'],
      ['compaction/end', 'committed'],
    ]);
    const [start] = (await node.log.read({ types: ['compaction/start'] })) as SessionEvent<'compaction/start'>[];
    expect(node.session.deriveMessages()[1]!.content).toContain(`seq ${start!.payload.range.start}-${start!.payload.range.end}`);
    expect(node.session.messageTokens()).toBeLessThan(5_000);
  });

  it('discards a candidate computed on an older surface generation and compacts synchronously', async () => {
    const summarize = pathListingSummarizer();
    const compactor = createCompactor(compactorOptions({ summarize }));
    await growUntil(3_500);
    const { candidate } = await compactor.preStep(node.session, prompt, signal);
    await candidate!.settled();
    // Something replaces part of the surface meanwhile (here: a manual prune).
    const pruned = await compactSession(node.session, { trigger: 'manual', window: WINDOW, summarize, signal, targetTokens: node.session.messageTokens() - 200 });
    expect(pruned).toMatchObject({ outcome: 'pruned' });
    await growUntil(5_000);
    const now = await compactor.preStep(node.session, prompt, signal);
    expect(now).toMatchObject({ verdict: 'now', result: { outcome: 'committed', trigger: 'threshold' } });
    const ends = (await node.log.read({ types: ['compaction/end'] })).map((event) => event.payload);
    expect(ends).toEqual([
      expect.objectContaining({ outcome: 'committed', stage: 'prune' }),
      expect.objectContaining({ compactionId: 'c-1', outcome: 'discarded', reason: 'surface-changed' }),
      expect.objectContaining({ outcome: 'committed', stage: 'summary' }),
    ]);
    expect(summarize.requests).toHaveLength(2);
  });

  it('waits for real growth after a compaction that could not get under the threshold', async () => {
    const summarize = pathListingSummarizer();
    const compactor = createCompactor(compactorOptions({ summarize, background: false }));
    await growUntil(1_000);
    // Three huge recent turns keep the surface over the threshold whatever is compacted.
    for (let index = 0; index < 3; index += 1) await appendToolTurn(node.session, { output: filler(1_800) });
    const first = await compactor.preStep(node.session, prompt, signal);
    expect(first).toMatchObject({ verdict: 'now', result: { outcome: 'committed' } });
    expect(first.result!.outcome === 'committed' && first.result!.tokensAfter).toBeGreaterThan(5_000);
    await appendToolTurn(node.session, { output: filler(100) });
    expect(await compactor.preStep(node.session, prompt, signal)).toMatchObject({ verdict: 'none' });
    await appendToolTurn(node.session, { output: filler(1_200) });
    expect(await compactor.preStep(node.session, prompt, signal)).toMatchObject({ verdict: 'now' });
    expect(summarize.requests).toHaveLength(2);
  });

  it('does not call a failing summarizer again every step', async () => {
    const summarize = scriptedSummarizer(new Error('overloaded'));
    const compactor = createCompactor(compactorOptions({ summarize, background: false }));
    await growUntil(5_000);
    expect(await compactor.preStep(node.session, prompt, signal)).toMatchObject({ result: { outcome: 'failed', attempts: 2 } });
    expect(await compactor.preStep(node.session, prompt, signal)).toMatchObject({ verdict: 'none' });
    expect(summarize.requests).toHaveLength(2);
  });

  it('compacts after a context-overflow error even below the threshold, as the agent loop expects', async () => {
    const compactor: AgentCompactor = createCompactor(compactorOptions());
    await growUntil(2_500);
    const snapshot = { system: prompt.system, systemHash: 's', tools: [], toolsHash: 't', context: {} };
    expect(await compactor.onContextOverflow(node.session, snapshot, signal)).toBe(true);
    expect((await node.log.read({ types: ['compaction/start'] }))[0]!.payload).toMatchObject({ trigger: 'overflow' });
    // Nothing left to compact: the agent must not retry.
    expect(await compactor.onContextOverflow(node.session, snapshot, signal)).toBe(false);
  });

  it('compacts on demand and reports how it went', async () => {
    const compactor = createCompactor(compactorOptions());
    await growUntil(2_500);
    expect(await compactor.compact(node.session, prompt, signal)).toMatchObject({ outcome: 'committed', trigger: 'manual' });
  });

  it('recovers its state from the log after a restart', async () => {
    const compactor = createCompactor(compactorOptions({ background: false }));
    await growUntil(1_000);
    for (let index = 0; index < 3; index += 1) await appendToolTurn(node.session, { output: filler(1_800) });
    expect(await compactor.preStep(node.session, prompt, signal)).toMatchObject({ result: { outcome: 'committed' } });
    // A compaction that a crash left open.
    await node.session.append({ type: 'compaction/start', payload: { compactionId: 'c-lost', trigger: 'background', range: { start: 3, end: 4 }, tokensBefore: 4_000 } });

    const reopened = await Session.open(node.log, 'edit-a');
    const restarted = createCompactor(compactorOptions({ background: false }));
    expect(await restarted.check(reopened, prompt)).toMatchObject({ verdict: 'none' });
    const ends = await node.log.read({ types: ['compaction/end'] });
    expect(ends.at(-1)!.payload).toMatchObject({ compactionId: 'c-lost', outcome: 'failed' });
    reopened.close();
  });

  it("reads nothing of the log for a node's first surface, whose node has no compaction before it; any other surface recovers its state", async () => {
    let statements = 0;
    const counting: KyselyPlugin = { transformQuery: ({ node: query }) => query, transformResult: async ({ result }) => ((statements += 1), result) };
    const log = new EventLog(node.store.db.withPlugin(counting), node.runId);
    const compactor = createCompactor(compactorOptions({ background: false }));
    const first = Session.startingAt(log, await log.append({ type: 'node/snapshotted', nodeId: 'edit-b', turn: 1, payload: { attempt: 1, boundary: {} } }), { firstOfNode: true });
    const before = statements;
    expect(await compactor.check(first, prompt)).toMatchObject({ verdict: 'none' });
    expect(statements).toBe(before);

    const again = Session.startingAt(log, await log.append({ type: 'node/snapshotted', nodeId: 'edit-b', turn: 1, payload: { attempt: 2, boundary: {} } }));
    const beforeAgain = statements;
    expect(await compactor.check(again, prompt)).toMatchObject({ verdict: 'none' });
    expect(statements).toBe(beforeAgain + 1);
    first.close();
    again.close();
  });

  it('release discards a ready candidate', async () => {
    const compactor = createCompactor(compactorOptions());
    await growUntil(3_500);
    const { candidate } = await compactor.preStep(node.session, prompt, signal);
    await candidate!.settled();
    expect(candidate!.status).toBe('ready');
    await compactor.release(node.session);
    expect(await compactionEvents()).toEqual([
      ['compaction/start', 'c-1'],
      ['compaction/summary', 'c-1'],
      ['compaction/end', 'discarded'],
    ]);
  });

  it('release aborts a candidate still being computed', async () => {
    const summarize = (_request: unknown, abort: AbortSignal): Promise<never> =>
      new Promise((_resolve, reject) => abort.addEventListener('abort', () => reject(new Error('aborted by signal')), { once: true }));
    const compactor = createCompactor(compactorOptions({ summarize }));
    await growUntil(3_500);
    expect(await compactor.preStep(node.session, prompt, signal)).toMatchObject({ candidate: { status: 'computing' } });
    await compactor.release(node.session);
    expect(await compactionEvents()).toEqual([
      ['compaction/start', 'c-1'],
      ['compaction/end', 'failed'],
    ]);
  });

  it('keeps a long node under its window, step after step, with every compaction closed in the log', async () => {
    const summarize = pathListingSummarizer();
    const compactor = createCompactor(compactorOptions({ summarize, pruneMinTokens: 100 }));
    await growUntil(1);
    let peak = 0;
    for (let step = 1; step <= 60; step += 1) {
      const { tokens } = await compactor.preStep(node.session, prompt, signal);
      peak = Math.max(peak, tokens);
      turnIndex += 1;
      await appendToolTurn(node.session, { args: { path: `src/f${turnIndex}.ts` }, output: filler(step % 3 === 0 ? 900 : 150), step });
    }
    await compactor.release(node.session);
    expect(peak).toBeLessThan(WINDOW - 1_000);
    expect(node.session.instruction()).toMatchObject({ seq: 2 });
    expect(node.session.openToolCalls()).toEqual([]);
    const starts = await node.log.read({ types: ['compaction/start'] });
    const ends = await node.log.read({ types: ['compaction/end'] });
    expect(starts.length).toBeGreaterThan(2);
    expect(ends.map((event) => event.payload.compactionId).sort()).toEqual(starts.map((event) => event.payload.compactionId).sort());
    // Nothing is lost: the first tool output is still in the log.
    const [first] = await node.log.read({ fromSeq: 4, toSeq: 4 });
    expect(first).toMatchObject({ type: 'tool/result', payload: { content: filler(150) } });
  });
});
