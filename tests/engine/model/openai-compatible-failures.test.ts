import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ContextOverflowError,
  ModelError,
  ModelRequestError,
  RateLimitError,
  StreamInterruptedError,
  callModel,
  createOpenAICompatibleProvider,
  type ModelProvider,
} from '../../../engine/model/index.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { deepSeekProviderAt, drain, modelRequest, openAIProviderAt, recordingSleep, toolCallsOf } from './request-fixtures.js';
import { deepSeekChunk, openAIChunk, openAIError, openAISse } from './wire-samples.js';

let server: LoopbackServer;
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(async () => server.close());

const openAI = (options: { idleTimeoutMs?: number } = {}): ModelProvider => openAIProviderAt(server.url, options);
const deepSeek = (): ModelProvider => deepSeekProviderAt(server.url);

const json = { 'content-type': 'application/json' };
const signal = (): AbortSignal => new AbortController().signal;

describe('OpenAI-compatible streaming: interrupted responses', () => {
  it('fails with a retryable StreamInterruptedError and no tool call when the connection drops mid-call', async () => {
    server.enqueue({
      reset: true,
      body: openAISse([
        openAIChunk({ tool_calls: [{ index: 0, id: 'call_cut', type: 'function', function: { name: 'write_file', arguments: '{"path": "src/a.ts", "content": "exp' } }] }),
      ], { done: false }),
    });

    const { parts, error } = await drain(openAI(), modelRequest());

    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect((error as StreamInterruptedError).retryable).toBe(true);
    expect(toolCallsOf(parts)).toEqual([]);
  });

  it('treats a stream that ends cleanly without finish_reason or [DONE] as interrupted', async () => {
    server.enqueue({ body: openAISse([openAIChunk({ content: 'Half an ans' })], { done: false }) });

    const { parts, error } = await drain(openAI(), modelRequest());

    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('gives up on a stream that goes silent (idle timeout) without emitting the pending call', async () => {
    server.enqueue({
      stall: true,
      body: openAISse([deepSeekChunk({ reasoning_content: 'Thinking' }), deepSeekChunk({ tool_calls: [{ index: 0, id: 'call_s', type: 'function', function: { name: 'read_file', arguments: '{"pa' } }] })], { done: false }),
    });

    const { parts, error } = await drain(openAI({ idleTimeoutMs: 150 }), modelRequest());

    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect((error as Error).message).toMatch(/no data for/);
    expect(toolCallsOf(parts)).toEqual([]);
  });

  it('turns an error object inside the stream into a typed error', async () => {
    server.enqueue({ body: openAISse([openAIChunk({ content: 'Par' }), { error: { message: 'Internal server error', type: 'server_error', code: null } }], { done: false }) });

    const { error } = await drain(openAI(), modelRequest());

    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).retryable).toBe(true);
  });

  it('stops at once when the caller aborts, with the abort reason and no retry', async () => {
    server.enqueue({ stall: true, body: openAISse([openAIChunk({ content: 'Working' })], { done: false }) });
    const controller = new AbortController();
    const reason = new Error('run cancelled');

    const call = callModel(openAI(), modelRequest(), { signal: controller.signal, onPart: () => controller.abort(reason) });

    await expect(call).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });
});

describe('OpenAI-compatible HTTP errors and retries', () => {
  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    server.enqueue(
      { status: 429, headers: { ...json, 'retry-after': '2' }, body: openAIError('Rate limit reached for gpt-4.1 in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1.', 'requests', 'rate_limit_exceeded') },
      { body: openAISse([openAIChunk({ content: 'ok' }, { finish: 'stop' })]) },
    );
    const { sleep, delays } = recordingSleep();
    const retries: unknown[] = [];

    const response = await callModel(openAI(), modelRequest(), { signal: signal(), sleep, onRetry: (notice) => retries.push(notice) });

    expect(response.content).toBe('ok');
    expect(response.attempts).toBe(2);
    expect(delays).toEqual([2000]);
    expect(retries).toEqual([{ attempt: 1, delayMs: 2000, error: expect.any(ModelError) }]);
    expect(server.requests).toHaveLength(2);
  });

  it('reads retry-after-ms, and the wait OpenAI writes into a 429 message', async () => {
    server.enqueue(
      { status: 429, headers: { ...json, 'retry-after-ms': '750' }, body: openAIError('Rate limit reached', 'requests', 'rate_limit_exceeded') },
      { status: 429, headers: json, body: openAIError('Rate limit reached for gpt-4.1 on tokens per min (TPM): Limit 30000, Used 28039, Requested 3906. Please try again in 3.89s. Visit https://platform.openai.com/account/rate-limits to learn more.', 'tokens', 'rate_limit_exceeded') },
      { body: openAISse([openAIChunk({ content: 'ok' }, { finish: 'stop' })]) },
    );
    const { sleep, delays } = recordingSleep();

    await callModel(openAI(), modelRequest(), { signal: signal(), sleep });

    expect(delays).toEqual([750, 3890]);
  });

  it('honours Retry-After given as an HTTP date', async () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    server.enqueue(
      { status: 503, headers: { ...json, 'retry-after': inTenSeconds }, body: openAIError('The engine is currently overloaded, please try again later', 'server_error', null) },
      { body: openAISse([openAIChunk({ content: 'ok' }, { finish: 'stop' })]) },
    );
    const { sleep, delays } = recordingSleep();

    await callModel(openAI(), modelRequest(), { signal: signal(), sleep });

    expect(delays[0]).toBeGreaterThan(1_000);
    expect(delays[0]).toBeLessThanOrEqual(10_000);
  });

  it('backs off with jitter after a 503 without Retry-After, then succeeds', async () => {
    server.enqueue(
      { status: 503, headers: json, body: openAIError('Server overloaded', 'server_error', null) },
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>502 Bad Gateway</html>' },
      { body: openAISse([openAIChunk({ content: 'ok' }, { finish: 'stop' })]) },
    );
    const { sleep, delays } = recordingSleep();

    const response = await callModel(openAI(), modelRequest(), { signal: signal(), sleep, random: () => 0.5 });

    expect(response.attempts).toBe(3);
    expect(delays).toEqual([250, 500]);
  });

  it('does not retry a 400', async () => {
    server.enqueue({ status: 400, headers: json, body: openAIError("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'invalid_request_error', 'unsupported_parameter', 'max_tokens') });
    const { sleep, delays } = recordingSleep();

    const call = callModel(openAI(), modelRequest(), { signal: signal(), sleep });

    await expect(call).rejects.toBeInstanceOf(ModelRequestError);
    await expect(call).rejects.toThrow(/Unsupported parameter/);
    expect(delays).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 401 and names the key variable', async () => {
    server.enqueue({ status: 401, headers: json, body: openAIError('Authentication Fails (no such user)', 'authentication_error', 'invalid_request_error') });

    const call = callModel(deepSeek(), modelRequest(), { signal: signal(), sleep: recordingSleep().sleep });

    await expect(call).rejects.toThrow(/deepseek 401: Authentication Fails.*DEEPSEEK_API_KEY/);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 402 (DeepSeek out of balance)', async () => {
    server.enqueue({ status: 402, headers: json, body: openAIError('Insufficient Balance', 'unknown_error', 'invalid_request_error') });

    await expect(callModel(deepSeek(), modelRequest(), { signal: signal(), sleep: recordingSleep().sleep })).rejects.toBeInstanceOf(ModelRequestError);
    expect(server.requests).toHaveLength(1);
  });

  it("turns OpenAI's context_length_exceeded into a ContextOverflowError, not retried", async () => {
    server.enqueue({ status: 400, headers: json, body: openAIError("This model's maximum context length is 1047576 tokens. However, your messages resulted in 1050211 tokens. Please reduce the length of the messages.", 'invalid_request_error', 'context_length_exceeded', 'messages') });

    await expect(callModel(openAI(), modelRequest(), { signal: signal(), sleep: recordingSleep().sleep })).rejects.toBeInstanceOf(ContextOverflowError);
    expect(server.requests).toHaveLength(1);
  });

  it("recognises DeepSeek's overflow by its wording, since its code says nothing", async () => {
    server.enqueue({ status: 400, headers: json, body: openAIError("This model's maximum context length is 131072 tokens. However, you requested 141980 tokens (133980 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.", 'invalid_request_error', 'invalid_request_error') });

    await expect(callModel(deepSeek(), modelRequest(), { signal: signal() })).rejects.toBeInstanceOf(ContextOverflowError);
  });

  it('fails with a RateLimitError when Retry-After asks for more than 60 s', async () => {
    server.enqueue({ status: 429, headers: { ...json, 'retry-after': '120' }, body: openAIError('Rate limit reached', 'requests', 'rate_limit_exceeded') });
    const { sleep, delays } = recordingSleep();

    const call = callModel(openAI(), modelRequest(), { signal: signal(), sleep });

    await expect(call).rejects.toBeInstanceOf(RateLimitError);
    await expect(call).rejects.toMatchObject({ retryAfterMs: 120_000, status: 429 });
    expect(delays).toEqual([]);
  });

  it('does not retry a 429 for a request larger than the TPM limit', async () => {
    server.enqueue({ status: 429, headers: json, body: openAIError('Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 30601. The input or output tokens must be reduced in order to run successfully.', 'tokens', 'rate_limit_exceeded') });

    await expect(callModel(openAI(), modelRequest(), { signal: signal(), sleep: recordingSleep().sleep })).rejects.toBeInstanceOf(ModelRequestError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a refused connection three times, then reports it', async () => {
    const deadUrl = server.url;
    await server.close();
    const provider = createOpenAICompatibleProvider({ id: 'vllm', baseUrl: `${deadUrl}/v1`, contextWindow: () => 32_768 });
    const { sleep, delays } = recordingSleep();

    const call = callModel(provider, modelRequest(), { signal: signal(), sleep, random: () => 1 });

    await expect(call).rejects.toThrow(/vllm: cannot reach .*ECONNREFUSED/);
    expect(delays).toEqual([500, 1000, 2000]);
    server = await startLoopbackServer();
  });
});
