import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, createRun, openDatabase, type EventDraft, type Store } from '../../../engine/index.js';
import { InvalidEventError } from '../../../engine/errors.js';
import { openTempStore } from '../../helpers/temp-store.js';

let store: Store;
let path: string;
let cleanup: () => Promise<void>;
let runId: string;

beforeEach(async () => {
  ({ store, path, cleanup } = await openTempStore());
  runId = (await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' })).id;
});
afterEach(async () => cleanup());

const instruction = (content: string): EventDraft<'user/message'> => ({ type: 'user/message', payload: { content, source: 'instruction' } });
const callingTool = (id: string, path: string): EventDraft<'assistant/message'> => ({
  type: 'assistant/message',
  payload: { content: '', toolCalls: [{ id, name: 'read_file', args: { path } }], finishReason: 'tool-calls', provider: 'scripted', model: 'm' },
});
const toolResult = (id: string, content: string): EventDraft<'tool/result'> => ({
  type: 'tool/result',
  payload: { toolCallId: id, name: 'read_file', content, isError: false, meta: { outcome: 'ok', truncated: false, originalLength: content.length } },
});
/** The result a call gets when the run's cancel or pause stops it. */
const stoppedByRun = (id: string): EventDraft<'tool/result'> => {
  const content = 'aborted: the run was cancelled and the call was stopped';
  return { type: 'tool/result', payload: { toolCallId: id, name: 'read_file', content, isError: true, meta: { outcome: 'aborted', truncated: false, originalLength: content.length } } };
};
const answer = (content: string): EventDraft<'assistant/message'> => ({
  type: 'assistant/message',
  payload: { content, toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'm' },
});

describe('Session', () => {
  it('derives provider-neutral messages that name the events they came from', async () => {
    const session = await Session.open(new EventLog(store.db, runId), 'edit-a');
    await session.append(instruction('rename area()'));
    await session.append(callingTool('c1', 'src/a.ts'));
    await session.append(toolResult('c1', 'export interface Shape { area(): number }'));
    await session.append(answer('done'));

    const messages = session.deriveMessages();

    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(messages.map((message) => message.seq)).toEqual([2, 3, 4, 5]);
    expect(messages[2]).toMatchObject({ role: 'tool', toolCallId: 'c1', toolName: 'read_file', isError: false });
  });

  it('gives every node its own surface in the one log, with gap-free seqs', async () => {
    const log = new EventLog(store.db, runId);
    const a = await Session.open(log, 'edit-a');
    const b = await Session.open(log, 'edit-b');
    await a.append(instruction('task a'));
    await b.append(instruction('task b'));
    await a.append(answer('a done'));
    await b.append(answer('b done'));

    expect(a.deriveMessages().map((message) => message.role === 'user' || message.role === 'assistant' ? message.content : '')).toEqual(['task a', 'a done']);
    expect(b.deriveMessages().map((message) => message.seq)).toEqual([3, 5]);
    const seqs = (await log.read()).map((event) => event.seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
  });

  it('derives incrementally: appends cost only the new events, until a replace', async () => {
    const session = await Session.open(new EventLog(store.db, runId), 'n');
    await session.append(instruction('go'));
    for (let index = 0; index < 50; index += 1) {
      await session.append(answer(`step ${index}`));
      session.deriveMessages();
    }
    expect(session.derivationStats()).toEqual({ rebuilds: 1, messagesDerived: 51, textsCounted: 51 });
    const live = session.deriveMessages();
    await session.append(answer('one more'));
    expect(session.deriveMessages()).toBe(live);
    expect(live).toHaveLength(52);
  });

  it('counts messages as they arrive: once the counts are in, a step derives its messages without counting a text itself', async () => {
    const log = new EventLog(store.db, runId);
    const counting = await Session.open(log, 'n');
    const plain = await Session.open(log, 'n');
    counting.countArrivingMessages();
    counting.countAhead(['rename area() to surface() in src/a.ts']);
    await counting.append(instruction('rename area() to surface() in src/a.ts'));
    await counting.append(callingTool('c1', 'src/a.ts'));
    await counting.append(toolResult('c1', 'export interface Shape {\n  area(): number;\n}\n'.repeat(40)));

    await counting.countsReady();

    expect(counting.messageTokens()).toBe(plain.messageTokens());
    expect(counting.messageTokens()).toBeGreaterThan(100);
    expect(counting.derivationStats().textsCounted).toBe(0);
    expect(plain.derivationStats().textsCounted).toBe(4);

    await counting.append(answer('renamed'));
    expect(counting.messageTokens()).toBe(plain.messageTokens());
    counting.close();
    plain.close();
  });

  it('applies a surface replace: the shadowed events leave the messages but stay in the log', async () => {
    const log = new EventLog(store.db, runId);
    const session = await Session.open(log, 'n');
    await session.append(instruction('go')); // seq 2
    await session.append(callingTool('c1', 'a.ts')); // 3
    await session.append(toolResult('c1', 'A'.repeat(500))); // 4
    await session.append(callingTool('c2', 'b.ts')); // 5
    await session.append(toolResult('c2', 'B')); // 6
    session.deriveMessages();
    const generation = session.replaceGeneration;

    await session.append({
      type: 'user/message',
      payload: { content: 'summary of seqs 3-4', source: 'compaction-summary', compactionId: 'k1' },
      surfaceOp: { op: 'replace', start: 3, end: 4 },
      sourceEventSeqs: [3, 4],
    });

    expect(session.replaceGeneration).toBe(generation + 1);
    expect(session.deriveMessages().map((message) => message.seq)).toEqual([2, 7, 5, 6]);
    expect(session.derivationStats().rebuilds).toBe(2);
    expect((await log.read({ nodeId: 'n' })).map((event) => event.seq)).toEqual([2, 3, 4, 5, 6, 7]);

    const reopened = await Session.open(log, 'n');
    expect(reopened.deriveMessages()).toEqual(session.deriveMessages());
  });

  it('closes a tool call left without a result by a crash, so the history stays valid', async () => {
    const log = new EventLog(store.db, runId);
    const before = await Session.open(log, 'n');
    await before.append(instruction('go'));
    await before.append(callingTool('c1', 'a.ts'));
    before.close();
    await store.close();

    store = await openDatabase(path);
    const after = await Session.open(new EventLog(store.db, runId), 'n');
    expect(after.openToolCalls().map((call) => call.id)).toEqual(['c1']);

    expect(await after.closeInterruptedToolCalls()).toBe(1);

    const messages = after.deriveMessages();
    expect(messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', isError: true });
    expect(after.openToolCalls()).toEqual([]);
    expect(await after.closeInterruptedToolCalls()).toBe(0);
  });

  it("keeps a call the run's stop aborted open, and its next result takes the aborted one's place on the surface (the log keeps both)", async () => {
    const log = new EventLog(store.db, runId);
    const session = await Session.open(log, 'n');
    await session.append(instruction('go'));
    await session.append(callingTool('c1', 'a.ts'));
    const aborted = await session.append(stoppedByRun('c1'));

    expect(session.openToolCalls()).toEqual([{ id: 'c1', name: 'read_file', args: { path: 'a.ts' }, replaces: aborted.seq }]);
    expect(await session.closeInterruptedToolCalls('interrupted: not run again')).toBe(1);

    expect(session.openToolCalls()).toEqual([]);
    const tools = session.deriveMessages().filter((message) => message.role === 'tool');
    expect(tools).toEqual([expect.objectContaining({ toolCallId: 'c1', content: 'interrupted: not run again' })]);
    expect((await log.read({ types: ['tool/result'] })).map((event) => event.payload.meta.outcome)).toEqual(['aborted', 'interrupted']);
    const reopened = await Session.open(log, 'n');
    expect(reopened.deriveMessages()).toEqual(session.deriveMessages());
  });

  it('refuses an event whose payload does not match its type, and stores nothing', async () => {
    const log = new EventLog(store.db, runId);
    const session = await Session.open(log, 'n');
    const bad = { type: 'tool/result', payload: { toolCallId: 'c1', content: 42 } } as unknown as EventDraft;
    await expect(session.append(bad)).rejects.toBeInstanceOf(InvalidEventError);
    await expect(session.append(bad)).rejects.toThrow(/invalid tool\/result event: .*content/);
    expect(await log.read({ nodeId: 'n' })).toEqual([]);
  });

  it('refuses an unknown event type', async () => {
    const log = new EventLog(store.db, runId);
    await expect(log.append({ type: 'node/exploded', payload: {} } as unknown as EventDraft)).rejects.toThrow(/unknown event type/);
  });
});
