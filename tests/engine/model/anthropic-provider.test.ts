import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ContextOverflowError,
  DEFAULT_PRICE_TABLE,
  ModelError,
  ModelRequestError,
  StreamInterruptedError,
  callModel,
  costOf,
  createAnthropicProvider,
  type ModelProvider,
} from '../../../engine/model/index.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { drain, historyWithToolRound, modelRequest, recordingSleep, toolCallsOf } from './request-fixtures.js';
import { PING, anthropicError, anthropicMessageStart, anthropicSse } from './wire-samples.js';

let server: LoopbackServer;
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(async () => server.close());

function anthropic(): ModelProvider {
  return createAnthropicProvider({ baseUrl: server.url, apiKey: 'sk-ant-test', apiKeyEnv: 'ANTHROPIC_API_KEY', contextWindow: () => 200_000 });
}

const json = { 'content-type': 'application/json' };
const signal = (): AbortSignal => new AbortController().signal;
const request = modelRequest({ model: 'claude-sonnet-4-5' });

const toolUseStream = (partials: readonly string[], options: { ping?: boolean } = {}): Record<string, unknown>[] => [
  { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01Vq7', name: 'read_file', input: {} } },
  ...partials.flatMap((partial) => [
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: partial } },
    ...(options.ping === true ? [PING] : []),
  ]),
  { type: 'content_block_stop', index: 1 },
];

describe('Anthropic Messages streaming', () => {
  it('streams text, then a tool_use assembled from input_json_delta fragments (the first one empty)', async () => {
    server.enqueue({
      splitEvery: 11,
      body: anthropicSse([
        anthropicMessageStart({ input_tokens: 377, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 }),
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        PING,
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'I' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: "'ll read the shape module first." } },
        { type: 'content_block_stop', index: 0 },
        ...toolUseStream(['', '{"pat', 'h": "src/sh', 'ape.ts"}']),
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 65 } },
        { type: 'message_stop' },
      ]),
    });

    const response = await callModel(anthropic(), request, { signal: signal() });

    expect(response.content).toBe("I'll read the shape module first.");
    expect(response.toolCalls).toEqual([{ id: 'toolu_01Vq7', name: 'read_file', args: { path: 'src/shape.ts' } }]);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.usage).toEqual({ input: 377, output: 65, cacheHit: 0, reasoning: 0 });
    const [sent] = server.requests;
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe('sk-ant-test');
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('ignores pings inside an open block and takes cumulative usage without adding it up (padded JSON)', async () => {
    server.enqueue({
      body: anthropicSse([
        anthropicMessageStart({ input_tokens: 843, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 16 }, 'claude-haiku-4-5-20251001'),
        ...toolUseStream(['', '{"path": "src/sq', 'uare.ts"}'], { ping: true }),
        PING,
        PING,
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 843, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 28 } },
        { type: 'message_stop' },
      ], { padding: 9 }),
    });

    const response = await callModel(anthropic(), request, { signal: signal() });

    expect(response.toolCalls).toEqual([{ id: 'toolu_01Vq7', name: 'read_file', args: { path: 'src/square.ts' } }]);
    expect(response.usage).toEqual({ input: 843, output: 28, cacheHit: 0, reasoning: 0 });
  });

  it('counts cache reads and writes into the whole prompt, and prices them', async () => {
    server.enqueue({
      body: anthropicSse([
        anthropicMessageStart({ input_tokens: 3, cache_creation_input_tokens: 418, cache_read_input_tokens: 1111, output_tokens: 1 }),
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Done.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 3, cache_creation_input_tokens: 418, cache_read_input_tokens: 1111, output_tokens: 33 } },
        { type: 'message_stop' },
      ]),
    });

    const response = await callModel(anthropic(), request, { signal: signal() });

    expect(response.usage).toEqual({ input: 1532, output: 33, cacheHit: 1111, cacheWrite: 418, reasoning: 0 });
    const cost = costOf(response.usage, 'anthropic:claude-sonnet-4-5-20250929', DEFAULT_PRICE_TABLE);
    expect(cost.usd).toBeCloseTo((3 * 3 + 1111 * 0.3 + 418 * 3.75 + 33 * 15) / 1e6, 12);
  });

  it('treats a tool_use whose only fragment is "" as a call without arguments', async () => {
    server.enqueue({
      body: anthropicSse([
        anthropicMessageStart({ input_tokens: 50, output_tokens: 1 }),
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_list', name: 'list_files', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } },
        { type: 'message_stop' },
      ]),
    });

    const response = await callModel(anthropic(), request, { signal: signal() });

    expect(response.toolCalls).toEqual([{ id: 'toolu_list', name: 'list_files', args: {} }]);
  });

  it('streams thinking with its signature and sends both back before the tool_use next time', async () => {
    server.enqueue({
      body: anthropicSse([
        anthropicMessageStart({ input_tokens: 90, output_tokens: 1 }),
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Both files implement Shape.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Reading both files.' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 40 } },
        { type: 'message_stop' },
      ]),
    });

    const response = await callModel(anthropic(), request, { signal: signal() });

    expect(response).toMatchObject({ reasoning: 'Both files implement Shape.', reasoningSignature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h', content: 'Reading both files.' });

    server.enqueue({ body: anthropicSse([anthropicMessageStart({ input_tokens: 200, output_tokens: 1 }), { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }, { type: 'message_stop' }]) });
    await callModel(anthropic(), modelRequest({ messages: historyWithToolRound(response.reasoning, response.reasoningSignature) }), { signal: signal() });
    const assistant = (server.requests[1]?.json as { messages: { role: string; content: Record<string, unknown>[] }[] }).messages[1];
    expect(assistant?.content.map((block) => block['type'])).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    expect(assistant?.content[0]).toEqual({ type: 'thinking', thinking: 'Both files implement Shape.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' });
  });

  it('sends tools and system as cached prefixes, a breakpoint where the previous request ended, and tool results merged into one user turn', async () => {
    server.enqueue({ body: anthropicSse([anthropicMessageStart({ input_tokens: 10, output_tokens: 1 }), { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }, { type: 'message_stop' }]) });

    await callModel(anthropic(), modelRequest({ model: 'claude-sonnet-4-5', messages: historyWithToolRound() }), { signal: signal() });

    const body = server.requests[0]?.json as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 8192, stream: true });
    expect(body['system']).toEqual([{ type: 'text', text: 'You are a careful coding agent.', cache_control: { type: 'ephemeral' } }]);
    expect(body['tools']).toEqual([{ name: 'read_file', description: 'Read a file of the workspace.', input_schema: expect.objectContaining({ type: 'object' }), cache_control: { type: 'ephemeral' } }]);
    expect(body['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Rename Shape.area() to Shape.getArea().', cache_control: { type: 'ephemeral' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading both files.' },
          { type: 'tool_use', id: 'call_00_a1', name: 'read_file', input: { path: 'src/shape.ts' } },
          { type: 'tool_use', id: 'call_01_b2', name: 'read_file', input: { path: 'src/circle.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_00_a1', content: 'export interface Shape { area(): number }' },
          { type: 'tool_result', tool_use_id: 'call_01_b2', content: 'ENOENT: src/circle.ts', is_error: true },
          { type: 'text', text: 'cwd: /work/repo', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('puts the prefix breakpoint on the last tool when there is no system text', async () => {
    server.enqueue({ body: anthropicSse([anthropicMessageStart({ input_tokens: 10, output_tokens: 1 }), { type: 'message_stop' }]) });

    await callModel(anthropic(), modelRequest({ system: '' }), { signal: signal() });

    const body = server.requests[0]?.json as Record<string, unknown>;
    expect(body['system']).toBeUndefined();
    expect(body['tools']).toEqual([expect.objectContaining({ name: 'read_file', cache_control: { type: 'ephemeral' } })]);
  });
});

describe('Anthropic failures', () => {
  it('turns a mid-stream overloaded error into a retryable error and retries the whole call', async () => {
    server.enqueue(
      {
        body: `${anthropicSse([
          anthropicMessageStart({ input_tokens: 120, output_tokens: 1 }),
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial answer that must not survive' } },
        ])}event: error\ndata: {"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"}               }\n\n`,
      },
      {
        body: anthropicSse([
          anthropicMessageStart({ input_tokens: 120, output_tokens: 1 }),
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Complete answer.' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
          { type: 'message_stop' },
        ]),
      },
    );
    const { sleep, delays } = recordingSleep();
    const errors: unknown[] = [];

    const response = await callModel(anthropic(), request, { signal: signal(), sleep, random: () => 0, onRetry: ({ error }) => errors.push(error) });

    expect(response.content).toBe('Complete answer.');
    expect(errors[0]).toBeInstanceOf(ModelError);
    expect((errors[0] as ModelError).message).toMatch(/Overloaded/);
    expect(delays).toHaveLength(1);
  });

  it('yields no tool call when the stream ends before message_stop', async () => {
    server.enqueue({
      reset: true,
      body: anthropicSse([anthropicMessageStart({ input_tokens: 60, output_tokens: 1 }), ...toolUseStream(['', '{"path": "src/'])]).replace(/event: content_block_stop[^]*$/, ''),
    });

    const { parts, error } = await drain(anthropic(), request);

    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(toolCallsOf(parts)).toEqual([]);
  });

  it('turns "prompt is too long" into a ContextOverflowError', async () => {
    server.enqueue({ status: 400, headers: json, body: anthropicError('invalid_request_error', 'prompt is too long: 219898 tokens > 200000 maximum') });

    await expect(callModel(anthropic(), request, { signal: signal() })).rejects.toBeInstanceOf(ContextOverflowError);
    expect(server.requests).toHaveLength(1);
  });

  it('turns a 413 from the edge proxy (no Anthropic envelope) into a ContextOverflowError', async () => {
    server.enqueue({ status: 413, headers: json, body: '{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}' });

    await expect(callModel(anthropic(), request, { signal: signal() })).rejects.toBeInstanceOf(ContextOverflowError);
  });

  it('retries a 529 overloaded and a 429 with its Retry-After', async () => {
    server.enqueue(
      { status: 529, headers: { ...json, 'x-should-retry': 'true', 'request-id': 'req_01RCc7' }, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
      { status: 429, headers: { ...json, 'retry-after': '16', 'x-should-retry': 'true', 'anthropic-ratelimit-input-tokens-remaining': '0' }, body: anthropicError('rate_limit_error', 'This request would exceed the rate limit for your organization of 200,000 input tokens per minute.') },
      { body: anthropicSse([anthropicMessageStart({ input_tokens: 10, output_tokens: 1 }), { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }, { type: 'message_stop' }]) },
    );
    const { sleep, delays } = recordingSleep();

    const response = await callModel(anthropic(), request, { signal: signal(), sleep, random: () => 1 });

    expect(response.attempts).toBe(3);
    expect(delays).toEqual([500, 16_000]);
  });

  it('classifies an error envelope sent as a 200 JSON body instead of a stream', async () => {
    server.enqueue({ headers: json, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' });

    const { error } = await drain(anthropic(), request);

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ retryable: true, status: 529 });
  });

  it('does not retry a 401', async () => {
    server.enqueue({ status: 401, headers: json, body: '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}' });

    const call = callModel(anthropic(), request, { signal: signal(), sleep: recordingSleep().sleep });

    await expect(call).rejects.toBeInstanceOf(ModelRequestError);
    await expect(call).rejects.toThrow(/invalid x-api-key \(check ANTHROPIC_API_KEY\)/);
    expect(server.requests).toHaveLength(1);
  });
});
