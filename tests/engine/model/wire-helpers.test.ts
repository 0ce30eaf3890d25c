import { describe, expect, it } from 'vitest';
import {
  ContextOverflowError,
  ModelError,
  ModelRequestError,
  PrefixCache,
  headersFrom,
  modelErrorFromHttp,
  parseToolArgs,
  retryAfterMs,
} from '../../../engine/model/index.js';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-30T08:00:00Z');
  it.each([
    [{ 'retry-after': '16' }, 16_000],
    [{ 'retry-after': '1.5' }, 1_500],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after-ms': '250', 'retry-after': '10' }, 250],
    [{ 'retry-after': 'Mon, 30 Nov 2026 08:00:30 GMT' }, 30_000],
    [{ 'retry-after': 'Mon, 30 Nov 2026 07:59:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after': '-3' }, undefined],
    [{}, undefined],
  ])('%j → %s', (headers, expected) => {
    expect(retryAfterMs(headersFrom(headers), now)).toBe(expected);
  });
});

describe('modelErrorFromHttp', () => {
  const classify = (status: number, body: string, headers: Record<string, string> = {}): ModelError =>
    modelErrorFromHttp({ provider: 'p', status, headers: headersFrom(headers), body });
  it.each([
    [400, '{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}', ModelRequestError, false],
    [400, '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}', ContextOverflowError, false],
    [400, '{"error":{"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","code":400}}', ContextOverflowError, false],
    [404, '{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"},"request_id":"req_1"}', ModelRequestError, false],
    [422, 'Failed to deserialize the JSON body into the target type: messages[9]: invalid type', ModelRequestError, false],
    [429, '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}', ModelRequestError, false],
    [429, '{"type":"error","error":{"type":"rate_limit_error","message":"spend","details":{"error_code":"enforced_spend_limit_reached"}}}', ModelRequestError, false],
    [429, '{"error":{"message":"Your current concurrency is 40, which exceeds your concurrency limit of 39."}}', ModelError, true],
    [500, '{"type":"error","error":{"type":"api_error","message":"Overloaded"},"request_id":null}', ModelError, true],
    [501, 'not implemented', ModelError, false],
    [503, '', ModelError, true],
  ])('%d %s', (status, body, type, retryable) => {
    const error = classify(status, body);
    expect(error).toBeInstanceOf(type);
    expect(error.retryable).toBe(retryable);
    expect(error.status).toBe(status);
  });

  it('obeys x-should-retry: false', () => {
    expect(classify(503, '{}', { 'x-should-retry': 'false' }).retryable).toBe(false);
  });
});

describe('parseToolArgs', () => {
  it.each([
    ['', { args: {} }],
    ['  ', { args: {} }],
    ['{"path":"a.ts"}', { args: { path: 'a.ts' } }],
    ['"{\\"path\\":\\"a.ts\\"}"', { args: { path: 'a.ts' } }],
    ['{"path":', { args: {}, argsText: '{"path":' }],
    ['[1,2]', { args: {}, argsText: '[1,2]' }],
    ['null', { args: {}, argsText: 'null' }],
  ])('%j', (text, expected) => {
    expect(parseToolArgs(text)).toEqual(expected);
  });
});

describe('PrefixCache', () => {
  const tokens = (count: number, offset = 0): number[] => Array.from({ length: count }, (_, index) => index + offset);

  it('hits whole 64-token blocks of the longest common prefix, per session', () => {
    const cache = new PrefixCache();
    expect(cache.lookupAndStore('s', tokens(200))).toBe(0);
    expect(cache.lookupAndStore('s', tokens(300))).toBe(192);
    expect(cache.lookupAndStore('s', [...tokens(100), 9, ...tokens(200, 101)])).toBe(64);
    expect(cache.lookupAndStore('other', tokens(300))).toBe(0);
    expect(cache.lookupAndStore('s', tokens(63))).toBe(0);
  });

  it('matches a prefix of any earlier request, not only the last one', () => {
    const cache = new PrefixCache();
    cache.lookupAndStore('s', tokens(256));
    cache.lookupAndStore('s', tokens(256, 5000));
    expect(cache.lookupAndStore('s', [...tokens(128), ...tokens(64, 9000)])).toBe(128);
  });

  it('gives a request in parts the hits of the same request in one piece, whether its parts are shared arrays or equal copies', () => {
    const whole = new PrefixCache();
    const inParts = new PrefixCache();
    const system = tokens(150);
    const history = tokens(70, 1000);
    const requests = [
      [system, history],
      [system, history, tokens(90, 2000)],
      [[...system], [...history], tokens(90, 2000), tokens(5, 3000)],
      [system, tokens(70, 1000).map((token, index) => (index === 40 ? 7 : token))],
      [tokens(100), tokens(50, 100), history],
    ];
    for (const parts of requests) expect(inParts.lookupAndStoreParts('s', parts)).toBe(whole.lookupAndStore('s', parts.flat()));
  });
});
