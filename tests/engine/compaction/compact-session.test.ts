import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session, SystemPrompt, compactSession, reconstructRequest, type SessionEvent } from '../../../engine/index.js';
import type { CompactSessionOptions } from '../../../engine/compaction/compact-session.js';
import { buildRequest } from '../../../engine/context/build-request.js';
import { recordRequest } from '../../../engine/context/record-request.js';
import { appendToolTurn, filler, openNode, scriptedSummarizer, type NodeFixture } from './fixtures.js';

let node: NodeFixture;
beforeEach(async () => {
  node = await openNode();
});
afterEach(async () => node.cleanup());

const signal = new AbortController().signal;
const GOOD_SUMMARY = '## Primary request and intent\nRename area(). Files: src/f1.ts src/f2.ts src/f3.ts.';

/** Instruction (seq 2) and `turns` read_file turns (seqs 3, 4 | 5, 6 | ...) on src/f<n>.ts. */
async function history(turns: number, outputTokens = 50): Promise<void> {
  await node.session.append({ type: 'user/message', payload: { content: 'Rename area() to getArea() in src/.', source: 'instruction' } });
  for (let index = 1; index <= turns; index += 1) await appendToolTurn(node.session, { args: { path: `src/f${index}.ts` }, output: filler(outputTokens) });
}

function options(overrides: Partial<CompactSessionOptions> = {}): CompactSessionOptions {
  return { trigger: 'manual', window: 200_000, summarize: scriptedSummarizer(GOOD_SUMMARY), signal, createId: () => 'c-1', ...overrides };
}

async function eventsAfter(seq: number): Promise<SessionEvent[]> {
  return node.log.read({ fromSeq: seq + 1 });
}

describe('compactSession: the summary transaction', () => {
  it('appends start → summary → replacing message → end, and the surface shows the summary', async () => {
    await history(6);
    const summarize = scriptedSummarizer(GOOD_SUMMARY);
    const result = await compactSession(node.session, options({ summarize, pruneMinTokens: Number.POSITIVE_INFINITY }));

    expect(result).toMatchObject({ outcome: 'committed', compactionId: 'c-1', covered: { start: 3, end: 8 }, summarySeq: 16, messageSeq: 17, attempts: 1 });
    const events = await eventsAfter(14);
    expect(events.map((event) => [event.seq, event.type])).toEqual([
      [15, 'compaction/start'],
      [16, 'compaction/summary'],
      [17, 'user/message'],
      [18, 'compaction/end'],
    ]);
    const [start, summary, message, end] = events;
    expect(start).toMatchObject({ nodeId: 'edit-a', payload: { compactionId: 'c-1', trigger: 'manual', stage: 'summary', range: { start: 3, end: 8 } } });
    expect(summary!.payload).toMatchObject({ compactionId: 'c-1', summary: GOOD_SUMMARY, attempts: 1 });
    expect(message).toMatchObject({
      surfaceOp: { op: 'replace', start: 3, end: 8 },
      sourceEventSeqs: [15, 16, 3, 4, 5, 6, 7, 8],
      payload: { source: 'compaction-summary', compactionId: 'c-1' },
    });
    expect(message!.type === 'user/message' && message!.payload.content).toContain('recall_history with compaction_id "c-1"');
    expect(end!.payload).toMatchObject({ compactionId: 'c-1', outcome: 'committed', tokensAfter: result.outcome === 'committed' ? result.tokensAfter : -1 });

    const messages = node.session.deriveMessages();
    expect(messages.map((m) => m.seq)).toEqual([2, 17, 9, 10, 11, 12, 13, 14]);
    expect(messages[1]).toMatchObject({ role: 'user', source: 'compaction-summary' });
    expect(result.outcome === 'committed' && result.tokensAfter).toBe(node.session.messageTokens());
    // The log alone gives the same surface.
    const reopened = await Session.open(node.log, 'edit-a');
    expect(reopened.deriveMessages()).toEqual(messages);
    reopened.close();
  });

  it('sends the summarizer the pinned and compacted messages, then the template naming the seqs', async () => {
    await history(6);
    const summarize = scriptedSummarizer(GOOD_SUMMARY);
    await compactSession(node.session, options({ summarize, pruneMinTokens: Number.POSITIVE_INFINITY, model: 'deepseek-chat' }));
    const [request] = summarize.requests;
    expect(request).toMatchObject({ agent: 'summarizer', model: 'deepseek-chat', sessionId: node.runId });
    expect(request!.messages.map((m) => m.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 15]);
    const instruction = request!.messages.at(-1)!.content;
    for (const heading of ['Primary request and intent', 'Files and code (read, changed, key facts)', 'Commands and results', 'Errors and fixes', 'Decisions and constraints', 'Pending work and next step', 'Critical context']) {
      expect(instruction).toContain(`## ${heading}`);
    }
    expect(instruction).toContain('seq 3–8');
    expect(instruction).toContain('- seq 4: read_file {"path":"src/f1.ts"}');
  });

  it('uses the system prompt and tools of the region’s time, recorded in the log', async () => {
    const prompt = new SystemPrompt().addSection({ id: 'rules', text: 'SYSTEM V1' }).addTools('fs', () => [{ name: 'read_file', description: 'read', parameters: {} }]);
    await node.session.append({ type: 'user/message', payload: { content: 'Rename area().', source: 'instruction' } });
    const record = async (step: number): Promise<void> => {
      const snapshot = await prompt.assemble();
      const request = buildRequest({ agent: 'node:edit-a', model: 'm1', snapshot, messages: node.session.deriveMessages(), sessionId: node.runId });
      await recordRequest(node.session, { provider: 'test', request, snapshot, contextChanged: false, position: { turn: 0, step } });
    };
    for (let step = 1; step <= 6; step += 1) {
      if (step === 5) prompt.addSection({ id: 'rules', text: 'SYSTEM V2' });
      await record(step);
      await appendToolTurn(node.session, { output: filler(50), step });
    }
    const summarize = scriptedSummarizer(GOOD_SUMMARY);
    await compactSession(node.session, options({ summarize, pruneMinTokens: Number.POSITIVE_INFINITY, prompt: { system: 'SYSTEM NOW', tools: [] } }));
    expect(summarize.requests[0]).toMatchObject({ system: 'SYSTEM V1', model: 'm1', tools: [{ name: 'read_file' }] });

    // `dagent inspect` of the next request shows the summary in place of the region.
    await record(7);
    const inspected = await reconstructRequest(node.store.db, node.runId, 'edit-a', 7);
    expect(inspected.system).toBe('SYSTEM V2');
    expect(inspected.messages.map((m) => (m.role === 'user' ? m.source : m.role))).toEqual(['instruction', 'compaction-summary', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
  });

  it('folds an earlier summary into the next one', async () => {
    await history(6);
    await compactSession(node.session, options({ pruneMinTokens: Number.POSITIVE_INFINITY }));
    for (let index = 7; index <= 9; index += 1) await appendToolTurn(node.session, { args: { path: `src/f${index}.ts` }, output: filler(50) });
    const summarize = scriptedSummarizer(`${GOOD_SUMMARY} src/f4.ts src/f5.ts src/f6.ts`);
    const second = await compactSession(node.session, options({ summarize, pruneMinTokens: Number.POSITIVE_INFINITY, createId: () => 'c-2' }));
    // The first summary stands at position 3, so the second covers 3 … the end of turn 6.
    expect(second).toMatchObject({ outcome: 'committed', covered: { start: 3, end: 14 } });
    expect(summarize.requests[0]!.messages.map((m) => m.seq).slice(0, 3)).toEqual([2, 17, 9]);
    expect(node.session.deriveMessages().map((m) => m.seq)).toEqual([2, second.outcome === 'committed' ? second.messageSeq : -1, 19, 20, 21, 22, 23, 24]);
  });
});

describe('compactSession: guards', () => {
  it('a failing summarizer leaves the surface untouched', async () => {
    await history(6);
    const before = [...node.session.deriveMessages()];
    const generation = node.session.replaceGeneration;
    const summarize = scriptedSummarizer(new Error('503 service unavailable'));
    const result = await compactSession(node.session, options({ summarize, pruneMinTokens: Number.POSITIVE_INFINITY }));
    expect(result).toMatchObject({ outcome: 'failed', compactionId: 'c-1', error: '503 service unavailable', attempts: 2 });
    expect(summarize.requests).toHaveLength(2);
    expect(node.session.deriveMessages()).toEqual(before);
    expect(node.session.replaceGeneration).toBe(generation);
    expect((await eventsAfter(14)).map((event) => [event.type, event.payload])).toEqual([
      ['compaction/start', expect.objectContaining({ compactionId: 'c-1' })],
      ['compaction/end', { compactionId: 'c-1', outcome: 'failed', stage: 'summary', error: '503 service unavailable', attempts: 2 }],
    ]);
  });

  it('an aborted compaction ends failed and leaves the surface untouched', async () => {
    await history(6);
    const controller = new AbortController();
    const summarize = async (): Promise<never> => {
      controller.abort(new Error('node cancelled'));
      throw new Error('request aborted');
    };
    const result = await compactSession(node.session, options({ summarize, signal: controller.signal, pruneMinTokens: Number.POSITIVE_INFINITY }));
    expect(result).toMatchObject({ outcome: 'failed', error: 'aborted: node cancelled', attempts: 1 });
    expect(node.session.deriveMessages().map((m) => m.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  });

  it('discards a summary that is not smaller and prunes further instead', async () => {
    await history(6, 150);
    const summarize = scriptedSummarizer(`${GOOD_SUMMARY}\n${filler(2_000)}`);
    const result = await compactSession(node.session, options({ summarize, targetTokens: 0 }));
    expect(result).toMatchObject({ outcome: 'pruned', prunedSeqs: [4, 6, 8] });
    expect((await eventsAfter(14)).map((event) => `${event.type}${'outcome' in event.payload ? `:${String(event.payload.outcome)}` : ''}`)).toEqual([
      'compaction/start',
      'compaction/summary',
      'compaction/end:discarded',
      'compaction/start',
      'tool/result',
      'tool/result',
      'tool/result',
      'compaction/end:committed',
    ]);
  });

  it('retries a summary that loses facts, then appends the missing ones', async () => {
    await history(6);
    const summarize = scriptedSummarizer('## Primary request and intent\nRename.', 'Read src/f1.ts and src/f2.ts.');
    const result = await compactSession(node.session, options({ summarize, pruneMinTokens: Number.POSITIVE_INFINITY }));
    expect(result).toMatchObject({ outcome: 'committed', attempts: 2, appendedFacts: [{ kind: 'path', value: 'src/f3.ts' }] });
    expect(summarize.requests[1]!.messages.at(-1)!.content).toContain('- path: src/f1.ts\n- path: src/f2.ts\n- path: src/f3.ts');
    const summary = (await node.log.read({ types: ['compaction/summary'] }))[0]!;
    expect(summary.payload).toMatchObject({ attempts: 2, appendedFacts: [{ kind: 'path', value: 'src/f3.ts' }] });
    expect(node.session.deriveMessages()[1]!.content).toContain('## Facts to keep\nThe compacted conversation also named these:\n- path: src/f3.ts');
  });

  it('does not re-enter: a second compaction during the first is skipped', async () => {
    await history(6);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const summarize = async (): Promise<{ text: string }> => {
      await gate;
      return { text: GOOD_SUMMARY };
    };
    const first = compactSession(node.session, options({ summarize, pruneMinTokens: Number.POSITIVE_INFINITY }));
    await new Promise((resolve) => setImmediate(resolve));
    const second = await compactSession(node.session, options({ pruneMinTokens: Number.POSITIVE_INFINITY }));
    expect(second).toMatchObject({ outcome: 'skipped', reason: 'in-progress' });
    release();
    expect(await first).toMatchObject({ outcome: 'committed' });
    expect(await compactSession(node.session, options({ pruneMinTokens: Number.POSITIVE_INFINITY }))).toMatchObject({ outcome: 'skipped', reason: 'nothing-to-compact' });
  });

  it('skips a surface with no more than 3 turns', async () => {
    await history(3, 2_000);
    expect(await compactSession(node.session, options())).toMatchObject({ outcome: 'skipped', reason: 'nothing-to-compact' });
  });
});

describe('compactSession: pruning', () => {
  it('prunes the biggest old outputs first and stops as soon as the request is under the target', async () => {
    await node.session.append({ type: 'user/message', payload: { content: 'Rename area().', source: 'instruction' } });
    const seqs: number[] = [];
    for (const [index, tokens] of [200, 800, 400, 1_000].entries()) seqs.push(await appendToolTurn(node.session, { args: { path: `src/big${index}.ts` }, output: filler(tokens) }));
    for (let index = 0; index < 3; index += 1) await appendToolTurn(node.session, { output: 'small' });
    const tokens = node.session.messageTokens();
    const summarize = scriptedSummarizer(GOOD_SUMMARY);
    // Pruning the 1,000-token output alone is not enough; with the 800-token one it is.
    const result = await compactSession(node.session, options({ summarize, targetTokens: tokens - 1_500 }));

    expect(result).toMatchObject({ outcome: 'pruned', prunedSeqs: [seqs[1], seqs[3]] });
    expect(summarize.requests).toHaveLength(0);
    const contents = node.session.deriveMessages().map((m) => m.content);
    expect(contents).toContain(`[output of read_file src/big1.ts pruned — recall_history seq=${seqs[1]}]`);
    expect(contents).toContain(`[output of read_file src/big3.ts pruned — recall_history seq=${seqs[3]}]`);
    expect(result.outcome === 'pruned' && result.tokensAfter).toBe(node.session.messageTokens());
    expect(node.session.messageTokens()).toBeLessThanOrEqual(tokens - 1_500);
    // The original output is still in the log, where recall_history finds it.
    const [original] = await node.log.read({ fromSeq: seqs[1], toSeq: seqs[1] });
    expect(original!.type === 'tool/result' && original!.payload.content).toBe(filler(800));
    const placeholder = (await node.log.read({ types: ['tool/result'] })).find((event) => event.surfaceOp?.start === seqs[1]);
    expect(placeholder).toMatchObject({ sourceEventSeqs: [seqs[1]], surfaceOp: { op: 'replace', start: seqs[1], end: seqs[1] }, payload: { meta: { pruned: true, prunedSeq: seqs[1], originalLength: filler(800).length } } });
  });

  it('never prunes the last 3 turns, even when that is not enough', async () => {
    await history(4, 2_000);
    const summarize = scriptedSummarizer(new Error('unavailable'));
    const result = await compactSession(node.session, options({ summarize, targetTokens: 1_000 }));
    // Only turn 1 may be touched; pruning it cannot reach the target, so stage 2 runs (and fails here).
    expect(result).toMatchObject({ outcome: 'failed' });
    const pruned = await compactSession(node.session, options({ summarize, targetTokens: node.session.messageTokens() - 1_000 }));
    expect(pruned).toMatchObject({ outcome: 'pruned', prunedSeqs: [4] });
    expect(node.session.deriveMessages().filter((m) => m.content.includes('pruned —')).map((m) => m.content)).toEqual([
      '[output of read_file src/f1.ts pruned — recall_history seq=4]',
    ]);
  });
});
