import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  callModel,
  type ModelProvider,
} from '../../../engine/model/index.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { deepSeekProviderAt, drain, historyWithToolRound, modelRequest, openAIProviderAt, textOf, toolCallsOf } from './request-fixtures.js';
import { deepSeekChunk, deepSeekUsage, openAIChunk, openAISse, openAIUsageChunk } from './wire-samples.js';

let server: LoopbackServer;
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(async () => server.close());

const openAI = (options: { idleTimeoutMs?: number } = {}): ModelProvider => openAIProviderAt(server.url, options);
const deepSeek = (): ModelProvider => deepSeekProviderAt(server.url);

const json = { 'content-type': 'application/json' };
const signal = (): AbortSignal => new AbortController().signal;

describe('OpenAI-compatible streaming: text', () => {
  it('assembles text from deltas even when the bytes arrive split at arbitrary places', async () => {
    server.enqueue({
      splitEvery: 7,
      body: openAISse([
        openAIChunk({ role: 'assistant', content: '', refusal: null }),
        openAIChunk({ content: 'Renamed ' }),
        openAIChunk({ content: 'area() → getArea() in ' }),
        openAIChunk({ content: '3 files.' }),
        openAIChunk({}, { finish: 'stop' }),
        openAIUsageChunk({ prompt_tokens: 120, completion_tokens: 14, total_tokens: 134, completion_tokens_details: { reasoning_tokens: 0 } }),
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.content).toBe('Renamed area() → getArea() in 3 files.');
    expect(response.finishReason).toBe('stop');
    expect(response.toolCalls).toEqual([]);
    expect(response.usage).toEqual({ input: 120, output: 14, cacheHit: 0, reasoning: 0 });
  });

  it('sends system, tools and history as a streaming request that asks for usage', async () => {
    server.enqueue({ body: openAISse([openAIChunk({ content: 'ok' }, { finish: 'stop' })]) });

    await callModel(openAI(), modelRequest({ messages: historyWithToolRound('not sent to OpenAI'), parameters: { maxOutputTokens: 500, temperature: 0 } }), { signal: signal() });

    const [request] = server.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers['authorization']).toBe('Bearer sk-test');
    const body = request?.json as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'gpt-4.1', stream: true, stream_options: { include_usage: true }, max_completion_tokens: 500, temperature: 0 });
    expect(body['tools']).toEqual([{ type: 'function', function: { name: 'read_file', description: 'Read a file of the workspace.', parameters: expect.any(Object) } }]);
    expect(body['messages']).toEqual([
      { role: 'system', content: 'You are a careful coding agent.' },
      { role: 'user', content: 'Rename Shape.area() to Shape.getArea().' },
      {
        role: 'assistant', content: 'Reading both files.',
        tool_calls: [
          { id: 'call_00_a1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/shape.ts"}' } },
          { id: 'call_01_b2', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/circle.ts"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_00_a1', content: 'export interface Shape { area(): number }' },
      { role: 'tool', tool_call_id: 'call_01_b2', content: 'ENOENT: src/circle.ts' },
      { role: 'user', content: 'cwd: /work/repo' },
    ]);
  });

  it('ignores `: keep-alive` comments before and between events', async () => {
    const events = openAISse([openAIChunk({ content: 'Hello' }), openAIChunk({ content: ' world' }, { finish: 'stop' })]);
    server.enqueue({ body: `: keep-alive\n\n: keep-alive\n\n:\n\n${events.replace('\n\ndata:', '\n\n: keep-alive\n\ndata:')}` });

    const { parts, error } = await drain(openAI(), modelRequest());

    expect(error).toBeUndefined();
    expect(textOf(parts)).toBe('Hello world');
  });

  it('reports a cut at the output limit as finish reason "length"', async () => {
    server.enqueue({ body: openAISse([openAIChunk({ role: 'assistant', content: '' }), openAIChunk({ content: '{"' }), openAIChunk({}, { finish: 'length' })]) });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response).toMatchObject({ content: '{"', finishReason: 'length' });
  });

  it('accepts a whole JSON completion from a server that ignored stream: true (Ollama shape, `reasoning` field)', async () => {
    server.enqueue({
      headers: json,
      body: `\n\n${JSON.stringify({
        id: 'chatcmpl-412', object: 'chat.completion', created: 1790000200, model: 'qwen2.5-coder', system_fingerprint: 'fp_ollama',
        choices: [{ index: 0, finish_reason: 'tool_calls', message: {
          role: 'assistant', content: '', reasoning: 'The user wants the shape file.',
          tool_calls: [{ id: 'call_k3x9q2fz', index: 0, type: 'function', function: { name: 'read_file', arguments: '{"path":"src/shape.ts"}' } }],
        } }],
        usage: { prompt_tokens: 210, completion_tokens: 31, total_tokens: 241 },
      })}`,
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.reasoning).toBe('The user wants the shape file.');
    expect(response.toolCalls).toEqual([{ id: 'call_k3x9q2fz', name: 'read_file', args: { path: 'src/shape.ts' } }]);
    expect(response.usage).toMatchObject({ input: 210, output: 31 });
  });
});

describe('OpenAI-compatible streaming: tool calls', () => {
  it('joins arguments that arrive split across chunks, starting with ""', async () => {
    server.enqueue({
      body: openAISse([
        openAIChunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_R2kq8ZpLx0vN3mT5', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
        openAIChunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        openAIChunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "src/sh' } }] }),
        openAIChunk({ tool_calls: [{ index: 0, function: { arguments: 'ape.ts"}' } }] }),
        openAIChunk({}, { finish: 'tool_calls' }),
        openAIUsageChunk({ prompt_tokens: 80, completion_tokens: 19, total_tokens: 99 }),
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.finishReason).toBe('tool-calls');
    expect(response.toolCalls).toEqual([{ id: 'call_R2kq8ZpLx0vN3mT5', name: 'read_file', args: { path: 'src/shape.ts' } }]);
  });

  it('keeps parallel calls apart by index, with arguments split mid-token', async () => {
    server.enqueue({
      body: openAISse([
        openAIChunk({ role: 'assistant', content: null }),
        openAIChunk({ tool_calls: [{ index: 0, id: 'call_A', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
        openAIChunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        openAIChunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "src/a.ts"}' } }] }),
        openAIChunk({ tool_calls: [{ index: 1, id: 'call_B', type: 'function', function: { name: 'grep', arguments: '' } }] }),
        openAIChunk({ tool_calls: [{ index: 1, function: { arguments: '{"patt' } }] }),
        openAIChunk({ tool_calls: [{ index: 1, function: { arguments: 'ern": "area\\\\(\\\\)"}' } }] }),
        openAIChunk({}, { finish: 'tool_calls' }),
      ]),
    });

    const { parts } = await drain(openAI(), modelRequest());

    expect(toolCallsOf(parts).map(({ id, name, args }) => ({ id, name, args }))).toEqual([
      { id: 'call_A', name: 'read_file', args: { path: 'src/a.ts' } },
      { id: 'call_B', name: 'grep', args: { pattern: 'area\\(\\)' } },
    ]);
  });

  it('accepts a first tool-call index of 1 after text (Anthropic model behind an OpenAI-compatible gateway)', async () => {
    server.enqueue({
      body: openAISse([
        { id: 'msg_x', object: 'chat.completion.chunk', created: 0, model: 'claude-haiku-4-5', choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] },
        { id: 'msg_x', object: 'chat.completion.chunk', created: 0, model: 'claude-haiku-4-5', choices: [{ index: 0, delta: { content: 'Reading it.' }, finish_reason: null }] },
        { id: 'msg_x', object: 'chat.completion.chunk', created: 0, model: 'claude-haiku-4-5', choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'toolu_01X', type: 'function', function: { name: 'read_file', arguments: '' } }] }, finish_reason: null }] },
        { id: 'msg_x', object: 'chat.completion.chunk', created: 0, model: 'claude-haiku-4-5', choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '' } }] }, finish_reason: null }] },
        { id: 'msg_x', object: 'chat.completion.chunk', created: 0, model: 'claude-haiku-4-5', choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{"pa' } }] }, finish_reason: null }] },
        { id: 'msg_x', object: 'chat.completion.chunk', created: 0, model: 'claude-haiku-4-5', choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: 'th": "README.md"}' } }] }, finish_reason: null }] },
        { id: 'msg_x', object: 'chat.completion.chunk', created: 0, model: 'claude-haiku-4-5', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.content).toBe('Reading it.');
    expect(response.toolCalls).toEqual([{ id: 'toolu_01X', name: 'read_file', args: { path: 'README.md' } }]);
  });

  it('never lets an empty continuation id overwrite the real one (DashScope shape)', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
      choices: [{ delta, finish_reason: finish, index: 0, logprobs: null }], object: 'chat.completion.chunk', usage: null, created: 1790000300, system_fingerprint: null, model: 'qwen3-max', id: 'chatcmpl-9a1b',
    });
    server.enqueue({
      body: openAISse([
        chunk({ content: null, tool_calls: [{ index: 0, id: 'call_9f8e7d6c5b4a', type: 'function', function: { name: 'read_file', arguments: '' } }], role: 'assistant' }),
        chunk({ content: null, tool_calls: [{ index: 0, id: '', type: 'function', function: { arguments: '{"path": "src/sq' } }] }),
        chunk({ content: null, tool_calls: [{ index: 0, id: '', type: 'function', function: { arguments: 'uare.ts"}' } }] }),
        { choices: [{ delta: { tool_calls: [{ function: { arguments: '' }, index: 0, id: '', type: 'function' }] }, index: 0 }], object: 'chat.completion.chunk', usage: null, created: 1790000300, model: 'qwen3-max', id: 'chatcmpl-9a1b' },
        chunk({}, 'tool_calls'),
        { choices: [], object: 'chat.completion.chunk', usage: { prompt_tokens: 295, completion_tokens: 22, total_tokens: 317, prompt_tokens_details: { cached_tokens: 0 } }, created: 1790000300, model: 'qwen3-max', id: 'chatcmpl-9a1b' },
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.toolCalls).toEqual([{ id: 'call_9f8e7d6c5b4a', name: 'read_file', args: { path: 'src/square.ts' } }]);
  });

  it('makes stable, distinct ids for calls that came with an empty id', async () => {
    const body = openAISse([
      openAIChunk({ role: 'assistant', tool_calls: [{ index: 0, id: '', type: 'function', function: { name: 'list_files', arguments: '{}' } }] }, { id: 'resp-42' }),
      openAIChunk({ tool_calls: [{ index: 1, id: '', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] }, { id: 'resp-42' }),
      openAIChunk({}, { finish: 'tool_calls', id: 'resp-42' }),
    ]);
    server.enqueue({ body }, { body });

    const first = await callModel(openAI(), modelRequest(), { signal: signal() });
    const again = await callModel(openAI(), modelRequest(), { signal: signal() });

    const ids = first.toolCalls.map((call) => call.id);
    expect(ids.every((id) => /^call_[0-9a-f]{24}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(again.toolCalls.map((call) => call.id)).toEqual(ids);
  });

  it('keeps arguments given as an object instead of a string', async () => {
    server.enqueue({
      body: openAISse([
        openAIChunk({ role: 'assistant', content: '', tool_calls: [{ index: 0, id: 'call_obj', type: 'function', function: { name: 'read_file', arguments: { path: 'src/shape.ts', offset: 10 } } }] }),
        openAIChunk({}, { finish: 'stop' }),
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.toolCalls).toEqual([{ id: 'call_obj', name: 'read_file', args: { path: 'src/shape.ts', offset: 10 } }]);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('takes a whole call, finish reason and usage from one chunk without index or type (Mistral shape)', async () => {
    server.enqueue({
      body: openAISse([
        { id: 'b39f', object: 'chat.completion.chunk', created: 1790000400, model: 'mistral-small-latest', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }] },
        {
          id: 'b39f', object: 'chat.completion.chunk', created: 1790000400, model: 'mistral-small-latest',
          choices: [{ index: 0, delta: { content: null, tool_calls: [{ id: 'kT3mQ9zWb', function: { name: 'read_file', arguments: '{"path": "src/shape.ts"}' } }] }, finish_reason: 'tool_calls', logprobs: null }],
          usage: { prompt_tokens: 124, total_tokens: 146, completion_tokens: 22 },
        },
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.toolCalls).toEqual([{ id: 'kT3mQ9zWb', name: 'read_file', args: { path: 'src/shape.ts' } }]);
    expect(response.usage).toEqual({ input: 124, output: 22, cacheHit: 0, reasoning: 0 });
  });

  it('keeps the name when a continuation repeats it as "" (GLM shape)', async () => {
    server.enqueue({
      body: openAISse([
        { id: '735e', object: 'chat.completion.chunk', created: 1790000500, model: 'glm-4.6', choices: [{ index: 0, delta: { tool_calls: [{ id: 'chatcmpl-tool-9f14', type: 'function', function: { name: 'grep', arguments: '' }, index: 0 }], content: '' }, finish_reason: null, logprobs: null }] },
        { id: '735e', object: 'chat.completion.chunk', created: 1790000500, model: 'glm-4.6', choices: [{ index: 0, delta: { tool_calls: [{ type: 'function', function: { name: '', arguments: '{"pattern": "area"}' }, index: 0 }], content: '' }, finish_reason: null, logprobs: null }] },
        { id: '735e', object: 'chat.completion.chunk', created: 1790000500, model: 'glm-4.6', choices: [{ index: 0, delta: { content: '' }, finish_reason: 'tool_calls', logprobs: null }], usage: { prompt_tokens: 171, total_tokens: 185, completion_tokens: 14, prompt_tokens_details: { cached_tokens: 128 } } },
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.toolCalls).toEqual([{ id: 'chatcmpl-tool-9f14', name: 'grep', args: { pattern: 'area' } }]);
    expect(response.usage.cacheHit).toBe(128);
  });

  it('separates calls that share index 0 but carry different ids (Ollama)', async () => {
    server.enqueue({
      body: openAISse([
        openAIChunk({ role: 'assistant', content: '', tool_calls: [{ index: 0, id: 'call_one', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] }),
        openAIChunk({ tool_calls: [{ index: 0, id: 'call_two', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } }] }),
        openAIChunk({}, { finish: 'tool_calls' }),
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.toolCalls.map((call) => [call.id, call.args])).toEqual([['call_one', { path: 'a.ts' }], ['call_two', { path: 'b.ts' }]]);
  });

  it('leaves out a call that never got a name, since nothing could run or answer it', async () => {
    server.enqueue({
      body: openAISse([
        openAIChunk({ tool_calls: [{ index: 0, id: 'call_ok', type: 'function', function: { name: 'list_files', arguments: '{}' } }] }),
        openAIChunk({ tool_calls: [{ index: 3, function: { arguments: '' } }] }),
        openAIChunk({}, { finish: 'tool_calls' }),
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.toolCalls).toEqual([{ id: 'call_ok', name: 'list_files', args: {} }]);
  });

  it('passes arguments that are not JSON on as {} plus the raw text, for the tool layer to report', async () => {
    server.enqueue({
      body: openAISse([
        openAIChunk({ tool_calls: [{ index: 0, id: 'call_bad', type: 'function', function: { name: 'edit_file', arguments: '{"path": "a.ts", "old_string": "x' } }] }),
        openAIChunk({}, { finish: 'tool_calls' }),
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.toolCalls).toEqual([{ id: 'call_bad', name: 'edit_file', args: {}, argsText: '{"path": "a.ts", "old_string": "x' }]);
  });
});

describe('OpenAI-compatible streaming: usage', () => {
  it('reads OpenAI cached and reasoning tokens from the usage-only final chunk', async () => {
    server.enqueue({
      body: openAISse([
        openAIChunk({ role: 'assistant', content: '' }, { usageKey: true }),
        openAIChunk({ content: 'OK' }, { usageKey: true }),
        openAIChunk({}, { finish: 'stop', usageKey: true }),
        openAIUsageChunk({
          prompt_tokens: 4020, completion_tokens: 4, total_tokens: 4024,
          prompt_tokens_details: { cached_tokens: 4012, audio_tokens: 0, cache_write_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 2, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        }),
      ]),
    });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.usage).toEqual({ input: 4020, output: 4, cacheHit: 4012, reasoning: 2 });
  });

  it("reads DeepSeek's cache hit and miss from the finish chunk", async () => {
    server.enqueue({
      body: openAISse([
        deepSeekChunk({ role: 'assistant', content: '' }, { model: 'deepseek-chat' }),
        deepSeekChunk({ content: 'Done.' }, { model: 'deepseek-chat' }),
        deepSeekChunk({ content: '' }, { model: 'deepseek-chat', finish: 'stop', usage: deepSeekUsage(320, 175, 9) }),
      ]),
    });

    const response = await callModel(deepSeek(), modelRequest({ model: 'deepseek-chat' }), { signal: signal() });

    expect(response.usage).toEqual({ input: 495, output: 9, cacheHit: 320, reasoning: 0 });
  });

  it('estimates usage when the stream ends after finish_reason without usage or [DONE]', async () => {
    server.enqueue({ body: openAISse([openAIChunk({ content: 'All renamed.' }), openAIChunk({}, { finish: 'stop' })], { done: false }) });

    const response = await callModel(openAI(), modelRequest(), { signal: signal() });

    expect(response.content).toBe('All renamed.');
    expect(response.usage.estimated).toBe(true);
    expect(response.usage.input).toBeGreaterThan(10);
    expect(response.usage.output).toBeGreaterThan(0);
  });
});

describe('DeepSeek reasoner: reasoning_content', () => {
  it('streams reasoning apart from the answer', async () => {
    server.enqueue({
      body: openAISse([
        deepSeekChunk({ role: 'assistant', content: null, reasoning_content: '' }),
        deepSeekChunk({ content: null, reasoning_content: 'The user wants' }),
        deepSeekChunk({ content: null, reasoning_content: ' a rename.' }),
        deepSeekChunk({ content: 'I will', reasoning_content: null }),
        deepSeekChunk({ content: ' read the file.', reasoning_content: null }),
        deepSeekChunk({ content: '', reasoning_content: null }, { finish: 'stop', usage: deepSeekUsage(0, 18, 40, 25) }),
      ]),
    });

    const response = await callModel(deepSeek(), modelRequest({ model: 'deepseek-reasoner' }), { signal: signal() });

    expect(response.reasoning).toBe('The user wants a rename.');
    expect(response.content).toBe('I will read the file.');
    expect(response.usage).toEqual({ input: 18, output: 40, cacheHit: 0, reasoning: 25 });
  });

  it('sends reasoning_content back on the assistant tool-call turn of the next request', async () => {
    server.enqueue(
      {
        body: openAISse([
          deepSeekChunk({ role: 'assistant', content: null, reasoning_content: '' }),
          deepSeekChunk({ content: null, reasoning_content: 'I need the file first.' }),
          deepSeekChunk({ tool_calls: [{ index: 0, id: 'call_00_Xy7', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
          deepSeekChunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"' } }] }),
          deepSeekChunk({ tool_calls: [{ index: 0, function: { arguments: 'src/shape.ts"}' } }] }),
          deepSeekChunk({ content: '', reasoning_content: null }, { finish: 'tool_calls', usage: deepSeekUsage(320, 19, 83, 39) }),
        ]),
      },
      { body: openAISse([deepSeekChunk({ content: 'Renamed.' }, { finish: 'stop', usage: deepSeekUsage(384, 40, 3) })]) },
    );
    const provider = deepSeek();
    const first = await callModel(provider, modelRequest({ model: 'deepseek-reasoner' }), { signal: signal() });

    await callModel(provider, modelRequest({
      model: 'deepseek-reasoner',
      messages: [
        { role: 'user', seq: 1, source: 'instruction', content: 'Rename area().' },
        { role: 'assistant', seq: 2, content: first.content, reasoning: first.reasoning, toolCalls: first.toolCalls },
        { role: 'tool', seq: 3, toolCallId: 'call_00_Xy7', toolName: 'read_file', content: 'export interface Shape { area(): number }', isError: false },
      ],
    }), { signal: signal() });

    const messages = (server.requests[1]?.json as { messages: unknown[] }).messages;
    expect(messages[2]).toEqual({
      role: 'assistant', content: null, reasoning_content: 'I need the file first.',
      tool_calls: [{ id: 'call_00_Xy7', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/shape.ts"}' } }],
    });
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_00_Xy7', content: 'export interface Shape { area(): number }' });
    expect(server.requests[0]?.path).toBe('/chat/completions');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-ds');
  });
});
