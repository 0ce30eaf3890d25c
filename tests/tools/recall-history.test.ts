import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session, type SessionEvent } from '../../engine/index.js';
import { createToolRuntime, MAX_RECALLED_EVENTS, type LocalToolRuntime } from '../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../helpers/tools-test-bed.js';

let bed: ToolTestBed;
let runtime: LocalToolRuntime;
let other: Session;

beforeEach(async () => {
  bed = await openToolTestBed({ nodeId: 'edit-a' });
  runtime = createToolRuntime();
  other = await Session.open(bed.session.log, 'edit-b');
  const session = bed.session;
  await session.append({ type: 'user/message', turn: 0, step: 0, payload: { content: 'Rename area()', source: 'instruction' } });
  await session.append({
    type: 'assistant/message',
    turn: 1,
    step: 1,
    payload: { content: 'Reading.', toolCalls: [{ id: 't1', name: 'read_file', args: { path: 'src/a.ts' } }], finishReason: 'tool-calls', provider: 'p', model: 'm' },
  });
  await session.append({ type: 'tool/call', turn: 1, step: 1, payload: { toolCallId: 't1', name: 'read_file', args: { path: 'src/a.ts' } } });
  await session.append({
    type: 'tool/result',
    turn: 1,
    step: 1,
    payload: { toolCallId: 't1', name: 'read_file', content: '     1\tarea()', isError: false, meta: { outcome: 'ok', truncated: false, originalLength: 6, path: 'src/a.ts' } },
  });
  await other.append({ type: 'user/message', turn: 0, step: 0, payload: { content: 'Edit B', source: 'instruction' } });
  await session.append({ type: 'compaction/start', turn: 2, step: 2, payload: { compactionId: 'k1', trigger: 'threshold', range: { start: 3, end: 5 }, tokensBefore: 100 } });
  await session.append({ type: 'compaction/summary', turn: 2, step: 2, payload: { compactionId: 'k1', summary: '## Primary request' } });
  await session.append({ type: 'compaction/end', turn: 2, step: 2, payload: { compactionId: 'k1', outcome: 'committed', tokensAfter: 10 } });
});
afterEach(async () => {
  other.close();
  await bed.cleanup();
});

async function seqOf(predicate: (event: SessionEvent) => boolean): Promise<number> {
  return (await bed.events()).find(predicate)!.seq;
}

describe('recall_history', () => {
  it('reads one event by seq, as recorded', async () => {
    const seq = await seqOf((event) => event.type === 'tool/result');
    const result = await bed.call(runtime, 'recall_history', { seq });
    expect(result.content).toBe(`#${seq} node edit-a turn 1 step 1 tool/result\nread_file (call t1; outcome ok)\n     1\tarea()`);
    expect(result.meta).toMatchObject({ outcome: 'ok', events: 1, seqs: [seq] });
  });

  it('reads a seq range across nodes, and one node of it', async () => {
    const first = await seqOf((event) => event.type === 'tool/result');
    const range = await bed.call(runtime, 'recall_history', { from_seq: first, to_seq: first + 1 });
    expect(range.content.split('\n\n').map((block) => block.split('\n')[0])).toEqual([
      `#${first} node edit-a turn 1 step 1 tool/result`,
      `#${first + 1} node edit-b turn 0 step 0 user/message`,
    ]);
    const onlyB = await bed.call(runtime, 'recall_history', { node: 'edit-b' });
    expect(onlyB.content).toBe(`#${first + 1} node edit-b turn 0 step 0 user/message\n[instruction] Edit B`);
  });

  it('finds a tool call, its events and its result by id; results about a file by path', async () => {
    const byCall = await bed.call(runtime, 'recall_history', { tool_call_id: 't1' });
    expect(byCall.content.split('\n\n').map((block) => block.split('\n')[0]!.split(' ').at(-1))).toEqual(['assistant/message', 'tool/call', 'tool/result']);
    expect(byCall.content).toContain('tool call t1: read_file {"path":"src/a.ts"}');
    const byPath = await bed.call(runtime, 'recall_history', { path: './src/a.ts' });
    expect(byPath.content.split('\n\n').map((block) => block.split('\n')[0]!.split(' ').at(-1))).toEqual(['tool/call', 'tool/result']);
  });

  it('filters by turn and step within this node', async () => {
    const later = { position: { turn: 7, step: 7 } };
    const result = await bed.call(runtime, 'recall_history', { turn: 0 }, later);
    expect(result.content).toMatch(/^#\d+ node edit-a turn 0 step 0 user\/message\n\[instruction\] Rename area\(\)$/);
    expect((await bed.call(runtime, 'recall_history', { step: 1 }, later)).meta.events).toBe(3);
  });

  it('finds a compaction and the range it covers', async () => {
    const result = await bed.call(runtime, 'recall_history', { compaction_id: 'k1' });
    const blocks = result.content.split('\n\n');
    expect(blocks[0]).toBe('compaction k1 (committed) covers events #3–#5; recall them with from_seq 3 and to_seq 5');
    expect(blocks.slice(1).map((block) => block.split('\n')[0]!.split(' ').at(-1))).toEqual(['compaction/start', 'compaction/summary', 'compaction/end']);
  });

  it('explains empty results and missing filters', async () => {
    expect((await bed.call(runtime, 'recall_history', { tool_call_id: 'zz' })).content).toBe('no events match tool_call_id="zz"');
    const none = await bed.call(runtime, 'recall_history', {});
    expect(none).toMatchObject({ isError: true, meta: { outcome: 'error' } });
    expect(none.content).toMatch(/^error: recall_history needs at least one filter/);
    expect((await bed.call(runtime, 'recall_history', { from_seq: 5, to_seq: 2 })).content).toBe('error: from_seq 5 is after to_seq 2');
  });

  it(`shows at most ${MAX_RECALLED_EVENTS} events and says how to go on`, async () => {
    for (let index = 0; index < MAX_RECALLED_EVENTS + 5; index += 1) {
      await bed.session.append({ type: 'user/message', turn: 9, step: 9, payload: { content: `note ${index}`, source: 'note' } });
    }
    const result = await bed.call(runtime, 'recall_history', { turn: 9 });
    expect(result.meta).toMatchObject({ events: MAX_RECALLED_EVENTS + 5, truncated: true });
    expect(result.content).toMatch(/\(5 more events match; the last shown is #\d+: use from_seq \d+ or narrower filters\)$/);
  });
});
