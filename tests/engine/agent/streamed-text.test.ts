import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, foldRunView, runAgent, type ModelProvider, type Store } from '../../../engine/index.js';
import { TextStreamCoalescer } from '../../../engine/agent/text-stream-coalescer.js';
import type { ModelRequest } from '../../../engine/model/model-provider.js';
import { createScriptedProvider } from '../../../engine/model/scripted-provider.js';
import { FakeTools, toolOk } from '../../helpers/fake-tools.js';
import { openTempStore } from '../../helpers/temp-store.js';

describe('TextStreamCoalescer', () => {
  it('writes a few pieces a second, each ending at whitespace, and nothing for a response quicker than one interval', () => {
    let now = 0;
    const coalescer = new TextStreamCoalescer({ intervalMs: 200, now: () => now });
    const written: string[] = [];
    const words = 'Renaming the method sk-live-0123456789abcdef in all four implementations now '.match(/\S+\s*/g)!;
    for (const word of words) {
      const text = coalescer.push(word);
      if (text !== undefined) written.push(text);
      now += 60;
    }
    // 10 pieces over 600 ms: one event each time 200 ms have passed since the last one.
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written.length).toBeLessThanOrEqual(3);
    for (const text of written) expect(text).toMatch(/\s$/);
    expect(words.join('').startsWith(written.join(''))).toBe(true);
    expect(written.some((text) => text.includes('sk-live-0123456789abcdef'))).toBe(true);

    const quick = new TextStreamCoalescer({ intervalMs: 200, now: () => now });
    expect(quick.push('Done. ')).toBeUndefined();
    now += 150;
    expect(quick.push('All tests pass.')).toBeUndefined();
  });

  it('holds a word still arriving until whitespace follows it, and starts over after a retry', () => {
    let now = 0;
    const coalescer = new TextStreamCoalescer({ intervalMs: 100, now: () => now });
    expect(coalescer.push('the key sk-')).toBeUndefined();
    now = 150;
    expect(coalescer.push('abcdef')).toBe('the key ');
    now = 300;
    expect(coalescer.push('ghij')).toBeUndefined();
    coalescer.restart();
    expect(coalescer.push('Again ')).toBeUndefined();
    now = 450;
    expect(coalescer.push('from the start ')).toBe('Again from the start ');
  });
});

describe('streamed text in the session log', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let runId: string;
  beforeEach(async () => {
    ({ store, cleanup } = await openTempStore());
    runId = (await createRun(store.db, { task: 't', workspace: '/w', mode: 'react' })).id;
  });
  afterEach(async () => cleanup());

  it('is written while a response streams, folds into the node view, and never reaches the next request', async () => {
    let now = 0;
    const sleep = async (ms: number): Promise<void> => void (now += ms);
    const answer = 'I will read the interface first, then rename send() to deliver() in each implementation and run the tests.';
    const scripted = createScriptedProvider({
      script: {
        agents: {
          'node:edit-channel': [
            { text: answer, streamMs: 2_000, toolCalls: [{ name: 'read_file', args: { path: 'src/channel.ts' } }] },
            { text: 'Renamed.', streamMs: 100 },
          ],
        },
      },
      sleep,
    });
    const requests: ModelRequest[] = [];
    const provider: ModelProvider = { ...scripted, stream: (request, signal) => (requests.push(request), scripted.stream(request, signal)) };
    const session = await Session.open(new EventLog(store.db, runId), 'edit-channel');
    const tools = new FakeTools({ read_file: () => toolOk('export interface Channel { send(): void }') });

    const outcome = await runAgent({
      agent: 'node:edit-channel',
      session,
      prompt: new SystemPrompt().addSection({ id: 'identity', text: 'You are a coding agent.' }).addTools('fake', () => tools.specs()),
      provider,
      model: 'scripted',
      tools,
      toolContext: { runId, nodeId: 'edit-channel', workspace: '/w', approver: { interactive: false, ask: async () => ({ decision: 'yes' }) } },
      instruction: 'Rename send() to deliver().',
      signal: new AbortController().signal,
      streamText: { intervalMs: 200, now: () => now },
    });
    expect(outcome).toMatchObject({ reason: 'done', answer: 'Renamed.' });

    const events = await session.log.read({ nodeId: 'edit-channel' });
    const firstAnswer = events.findIndex((event) => event.type === 'assistant/message');
    const streamed = events.slice(0, firstAnswer).filter((event) => event.type === 'text/streamed');
    // 2 s of streaming at one event per 200 ms at most; the last words come with the message itself.
    expect(streamed.length).toBeGreaterThanOrEqual(5);
    expect(streamed.length).toBeLessThanOrEqual(10);
    const partial = streamed.map((event) => (event.type === 'text/streamed' ? event.payload.text : '')).join('');
    expect(answer.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(answer.length);
    // The short second answer streamed in less than one interval: no event for it.
    expect(events.slice(firstAnswer + 1).filter((event) => event.type === 'text/streamed')).toHaveLength(0);

    // Folded: partial text while streaming, none once the message is there.
    const whileStreaming = foldRunView(runId, events.slice(0, firstAnswer)).nodes.get('edit-channel');
    expect(whileStreaming?.streamingText).toBe(partial);
    expect(foldRunView(runId, events.slice(0, firstAnswer + 1)).nodes.get('edit-channel')?.streamingText).toBeNull();

    // The context builder reads messages only: the second request holds the first answer once, and no streamed event.
    const second = requests[1]!;
    expect(second.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.messages.filter((message) => message.content.includes('rename send() to deliver()'))).toHaveLength(1);
    const streamedSeqs = new Set(streamed.map((event) => event.seq));
    const contexts = events.filter((event) => event.type === 'request/context');
    for (const context of contexts) if (context.type === 'request/context') expect(context.payload.messageSeqs.some((seq) => streamedSeqs.has(seq))).toBe(false);
    expect(session.deriveMessages()).toHaveLength(4);
  });

  it('writes none when the agent is told not to', async () => {
    let now = 0;
    const provider = createScriptedProvider({ script: { agents: { react: [{ text: 'One two three four five six seven eight.', streamMs: 5_000 }] } }, sleep: async (ms) => void (now += ms) });
    const session = await Session.open(new EventLog(store.db, runId), 'react');
    const tools = new FakeTools({});
    await runAgent({
      agent: 'react', session, prompt: new SystemPrompt(), provider, model: 'scripted', tools,
      toolContext: { runId, nodeId: 'react', workspace: '/w', approver: { interactive: false, ask: async () => ({ decision: 'yes' }) } },
      instruction: 'Count.', signal: new AbortController().signal, streamText: false,
    });
    expect((await session.log.read({ types: ['text/streamed'] })).length).toBe(0);
  });
});
