import { describe, expect, it } from 'vitest';
import { fallbackVerdict } from '../../../engine/agent/fallback-verdict.js';
import { ContextOverflowError, ModelError, ModelRequestError, RateLimitError, ScriptExhaustedError } from '../../../engine/model/model-errors.js';

describe('which model failures go to the next model', () => {
  const provider = 'openai';
  it.each([
    ['a 503 that outlived its retries', new ModelError('openai 503: busy', { provider, status: 503, retryable: true }), 'retries-exhausted'],
    ['an overloaded Anthropic', new ModelError('anthropic 529: Overloaded', { provider, status: 529, retryable: true }), 'retries-exhausted'],
    ['a dropped stream', new ModelError('stream ended early', { provider, retryable: true }), 'retries-exhausted'],
    ['a wait longer than we accept', new RateLimitError('openai 429: slow down', { provider, status: 429 }), 'rate-limited'],
    ['a spent quota', new ModelRequestError('openai 429: exceeded your current quota', { provider, status: 429 }), 'rate-limited'],
    ['an unknown model (404)', new ModelRequestError('openai 404: The model `gpt-9` does not exist', { provider, status: 404 }), 'unknown-model'],
    ['an unknown model (400)', new ModelRequestError('deepseek 400: Model Not Exist', { provider, status: 400 }), 'unknown-model'],
    ['a context compaction could not fix', new ContextOverflowError('maximum context length is 8192', { provider, status: 400 }), 'context-overflow'],
    ['a refused key', new ModelRequestError('openai 401: bad key', { provider, status: 401 }), undefined],
    ['a malformed request', new ModelRequestError('openai 400: tools[0] is invalid JSON schema', { provider, status: 400 }), undefined],
    ['a script with no turn left', new ScriptExhaustedError('node:a', 'a.json'), undefined],
    ['a bug', new TypeError('x is undefined'), undefined],
  ])('%s', (_name, error, expected) => {
    expect(fallbackVerdict(error)).toBe(expected);
  });
});
