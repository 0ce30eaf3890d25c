import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ContextOverflowError,
  ModelError,
  ScriptExhaustedError,
  ScriptFileError,
  callModel,
  createScriptedProvider,
  type ModelRequest,
} from '../../../engine/model/index.js';
import type { ModelMessage } from '../../../engine/model/model-message.js';
import { drain, modelRequest, recordingSleep } from './request-fixtures.js';

const signal = (): AbortSignal => new AbortController().signal;
const noWait = recordingSleep().sleep;

describe('scripted provider: queues', () => {
  it('gives each agent its own turns, in order, as the demo script describes them', async () => {
    const provider = createScriptedProvider({
      sleep: noWait,
      script: {
        contextWindow: 64_000,
        agents: {
          planner: [{ text: '{ "nodes": [] }' }],
          'node:edit-a': [
            { toolCalls: [{ name: 'edit_file', args: { path: 'src/a.ts', old_string: 'area(): number', new_string: 'getArea(): number' } }] },
            { text: 'Renamed area() to getArea() in the Shape interface.' },
          ],
        },
      },
    });

    const edit = await callModel(provider, modelRequest({ agent: 'node:edit-a' }), { signal: signal() });
    const plan = await callModel(provider, modelRequest({ agent: 'planner' }), { signal: signal() });
    const done = await callModel(provider, modelRequest({ agent: 'node:edit-a' }), { signal: signal() });

    expect(edit.finishReason).toBe('tool-calls');
    expect(edit.toolCalls).toEqual([{ id: 'call_node_edit-a_1_1', name: 'edit_file', args: { path: 'src/a.ts', old_string: 'area(): number', new_string: 'getArea(): number' } }]);
    expect(plan.content).toBe('{ "nodes": [] }');
    expect(done).toMatchObject({ content: 'Renamed area() to getArea() in the Shape interface.', finishReason: 'stop', toolCalls: [] });
    expect(provider.contextWindow('any')).toBe(64_000);
    expect(provider.remaining('node:edit-a')).toBe(0);
  });

  it('uses the id a tool call carries, and passes invalid argument text on raw', async () => {
    const provider = createScriptedProvider({
      script: { agents: { react: [{ toolCalls: [{ id: 'call_fixed', name: 'read_file', args: { path: 'a.ts' } }, { name: 'grep', argsText: '{"pattern": ' }] }] } },
    });

    const response = await callModel(provider, modelRequest({ agent: 'react' }), { signal: signal() });

    expect(response.toolCalls).toEqual([
      { id: 'call_fixed', name: 'read_file', args: { path: 'a.ts' } },
      { id: 'call_react_1_2', name: 'grep', args: {}, argsText: '{"pattern": ' },
    ]);
  });

  it('fails with an error naming the agent whose queue is empty', async () => {
    const provider = createScriptedProvider({ file: 'examples/demo.json', readFile: () => JSON.stringify({ agents: { 'node:a': [{ text: 'only once' }] } }) });
    await callModel(provider, modelRequest({ agent: 'node:a' }), { signal: signal() });

    const again = callModel(provider, modelRequest({ agent: 'node:a' }), { signal: signal() });
    const unknown = callModel(provider, modelRequest({ agent: 'summarizer' }), { signal: signal() });

    await expect(again).rejects.toBeInstanceOf(ScriptExhaustedError);
    await expect(again).rejects.toThrow('scripted model examples/demo.json: no turn left for agent "node:a"');
    await expect(unknown).rejects.toThrow(/agent "summarizer"/);
  });
});

describe('scripted provider: latency', () => {
  it('waits the turn latency, else the default latency', async () => {
    const { sleep, delays } = recordingSleep();
    const provider = createScriptedProvider({ sleep, script: { defaults: { latencyMs: 40 }, agents: { react: [{ text: 'a' }, { text: 'b', latencyMs: 900 }] } } });

    await callModel(provider, modelRequest({ agent: 'react' }), { signal: signal() });
    await callModel(provider, modelRequest({ agent: 'react' }), { signal: signal() });

    expect(delays).toEqual([40, 900]);
  });

  it('streams a turn\'s text word by word over its streamMs, after the latency', async () => {
    const { sleep, delays } = recordingSleep();
    const provider = createScriptedProvider({ sleep, script: { defaults: { streamMs: 400 }, agents: { react: [{ text: 'Reading  the interface first.\n', latencyMs: 100 }, { text: 'Done.', streamMs: 0 }] } } });

    const streamed = await drain(provider, modelRequest({ agent: 'react' }));
    const texts = streamed.parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    expect(texts).toEqual(['Reading  ', 'the ', 'interface ', 'first.\n']);
    expect(delays).toEqual([100, 100, 100, 100, 100]);

    const whole = await drain(provider, modelRequest({ agent: 'react' }));
    expect(whole.parts.filter((part) => part.type === 'text')).toEqual([{ type: 'text', text: 'Done.' }]);
  });

  it('stops waiting when the call is aborted', async () => {
    const provider = createScriptedProvider({ script: { agents: { react: [{ text: 'too late', latencyMs: 600_000 }] } } });
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');

    const call = drain(provider, modelRequest({ agent: 'react' }), controller.signal);
    controller.abort(reason);

    expect(await call).toEqual({ parts: [], error: reason });
  });
});

describe('scripted provider: injected errors', () => {
  it('raises a 429 with Retry-After that callModel waits out before the next turn', async () => {
    const provider = createScriptedProvider({
      script: { agents: { react: [{ error: { status: 429, message: 'Rate limit reached', headers: { 'Retry-After': 2 } } }, { text: 'after the wait' }] } },
    });
    const { sleep, delays } = recordingSleep();

    const response = await callModel(provider, modelRequest({ agent: 'react' }), { signal: signal(), sleep });

    expect(response.content).toBe('after the wait');
    expect(delays).toEqual([2000]);
  });

  it('raises a retryable 503 like the HTTP providers do', async () => {
    const provider = createScriptedProvider({ script: { agents: { react: [{ error: { status: 503, message: 'Server Overloaded' } }] } } });

    const { error } = await drain(provider, modelRequest({ agent: 'react' }));

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 503, retryable: true, provider: 'scripted' });
  });

  it('raises a ContextOverflowError for a context-length message, which callModel does not retry', async () => {
    const provider = createScriptedProvider({
      script: { agents: { 'node:b': [{ error: { status: 400, message: "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens." } }, { text: 'never reached' }] } },
    });

    await expect(callModel(provider, modelRequest({ agent: 'node:b' }), { signal: signal(), sleep: noWait })).rejects.toBeInstanceOf(ContextOverflowError);
    expect(provider.remaining('node:b')).toBe(1);
  });
});

describe('scripted provider: usage and the simulated prefix cache', () => {
  const longSystem = `You are a careful coding agent.\n${'Follow the repository conventions and keep every test green. '.repeat(40)}`;
  const turns = Array.from({ length: 4 }, (_, index) => ({ text: `step ${index + 1} done` }));
  const grow = (messages: ModelMessage[], step: number): ModelMessage[] => [
    ...messages,
    { role: 'assistant', seq: step * 2, content: `step ${step} done`, toolCalls: [] },
    { role: 'user', seq: step * 2 + 1, source: 'user', content: `Now do step ${step + 1}: ${'details '.repeat(30)}` },
  ];

  it('counts more and more of a growing session as cache hits', async () => {
    const provider = createScriptedProvider({ script: { agents: { react: turns } } });
    let messages: ModelMessage[] = [{ role: 'user', seq: 1, source: 'instruction', content: 'Do step 1.' }];
    const hits: number[] = [];
    const inputs: number[] = [];
    for (let step = 1; step <= 4; step++) {
      const response = await callModel(provider, modelRequest({ agent: 'react', system: longSystem, messages }), { signal: signal() });
      hits.push(response.usage.cacheHit);
      inputs.push(response.usage.input);
      messages = grow(messages, step);
    }

    expect(hits[0]).toBe(0);
    for (let step = 1; step < 4; step++) {
      expect(hits[step]).toBeGreaterThan(hits[step - 1] ?? 0);
      expect(hits[step]).toBeLessThanOrEqual(inputs[step - 1] ?? 0);
      expect((hits[step] ?? 0) % 64).toBe(0);
      expect(inputs[step]).toBeGreaterThan(inputs[step - 1] ?? 0);
    }
  });

  it('shares nothing across sessions, and a changed system prompt breaks the prefix', async () => {
    const provider = createScriptedProvider({ script: { agents: { react: turns } } });
    const base: ModelRequest = modelRequest({ agent: 'react', system: longSystem });

    const first = await callModel(provider, base, { signal: signal() });
    const otherSession = await callModel(provider, { ...base, sessionId: 'run-2' }, { signal: signal() });
    const sameAgain = await callModel(provider, base, { signal: signal() });
    const changedSystem = await callModel(provider, { ...base, system: `Time: 08:15\n${longSystem}` }, { signal: signal() });

    expect(first.usage.cacheHit).toBe(0);
    expect(otherSession.usage.cacheHit).toBe(0);
    expect(sameAgain.usage.cacheHit).toBe(Math.floor(first.usage.input / 64) * 64);
    expect(changedSystem.usage.cacheHit).toBe(0);
  });

  it('takes usage from the turn where given, estimating the rest', async () => {
    const provider = createScriptedProvider({ script: { agents: { react: [{ text: 'x', usage: { input: 1000, output: 50, cacheHit: 900 } }, { text: 'hello world' }] } } });

    const given = await callModel(provider, modelRequest({ agent: 'react' }), { signal: signal() });
    const estimated = await callModel(provider, modelRequest({ agent: 'react' }), { signal: signal() });

    expect(given.usage).toEqual({ input: 1000, output: 50, cacheHit: 900, reasoning: 0 });
    expect(estimated.usage).toMatchObject({ output: 2, estimated: true });
  });
});

describe('scripted provider: the script file', () => {
  const load = (text: string): (() => unknown) => () => createScriptedProvider({ file: 'scripts/bad.json', readFile: () => text });

  it('names the file and the bad field', () => {
    expect(load(JSON.stringify({ agents: { 'node:a': [{ toolCalls: [{ args: {} }] }] } }))).toThrow(ScriptFileError);
    expect(load(JSON.stringify({ agents: { 'node:a': [{ toolCalls: [{ args: {} }] }] } }))).toThrow(/scripted model scripts\/bad\.json: agents\["node:a"\]\[0\]\.toolCalls\[0\]\.name: /);
    expect(load(JSON.stringify({ agents: { react: [{ txt: 'typo' }] } }))).toThrow(/agents\.react\[0\]: .*txt/);
    expect(load(JSON.stringify({ agents: { react: [{ error: { status: 'busy', message: 'x' } }] } }))).toThrow(/agents\.react\[0\]\.error\.status/);
  });

  it('says when the file is not JSON or cannot be read', () => {
    expect(load('{ "agents": ')).toThrow(/scripts\/bad\.json: not valid JSON/);
    expect(() => createScriptedProvider({ file: '/nonexistent/dagent-script.json' })).toThrow(/dagent-script\.json: cannot read the file \(ENOENT\)/);
  });
});

describe('a scripted model file that is not a regular file', () => {
  it('is refused at once instead of blocking on a FIFO', () => {
    const folder = mkdtempSync(join(tmpdir(), 'dagent-fifo-'));
    try {
      const fifo = join(folder, 'script.json');
      execFileSync('mkfifo', [fifo]);
      // No writer ever opens the FIFO: reading it the ordinary way would wait forever.
      expect(() => createScriptedProvider({ file: fifo })).toThrow(/script\.json: cannot read the file \(it is a FIFO, not a regular file; a script must be a JSON file\)/);
      expect(() => createScriptedProvider({ file: folder })).toThrow(/cannot read the file \(EISDIR|it is a directory/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
