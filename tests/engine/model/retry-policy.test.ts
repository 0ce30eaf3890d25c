import { describe, expect, it } from 'vitest';
import {
  ContextOverflowError,
  DEFAULT_RETRY_POLICY,
  ModelError,
  ModelRequestError,
  RateLimitError,
  StreamInterruptedError,
  backoffDelay,
  retryVerdict,
} from '../../../engine/model/index.js';

const retryable = (status?: number, retryAfterMs?: number): ModelError =>
  new ModelError('failed', { provider: 'deepseek', retryable: true, ...(status === undefined ? {} : { status }), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

describe('retryVerdict', () => {
  const half = (): number => 0.5;
  const cases: { name: string; error: unknown; attempt: number; expected: { action: 'retry'; delayMs: number } | { action: 'fail' } }[] = [
    { name: '408 retried', error: retryable(408), attempt: 1, expected: { action: 'retry', delayMs: 250 } },
    { name: '429 retried', error: retryable(429), attempt: 1, expected: { action: 'retry', delayMs: 250 } },
    { name: '500 retried', error: retryable(500), attempt: 2, expected: { action: 'retry', delayMs: 500 } },
    { name: '502 retried', error: retryable(502), attempt: 3, expected: { action: 'retry', delayMs: 1000 } },
    { name: '503 retried', error: retryable(503), attempt: 1, expected: { action: 'retry', delayMs: 250 } },
    { name: '504 retried', error: retryable(504), attempt: 1, expected: { action: 'retry', delayMs: 250 } },
    { name: '529 (Anthropic overloaded) retried', error: retryable(529), attempt: 1, expected: { action: 'retry', delayMs: 250 } },
    { name: 'connection error (no status) retried', error: retryable(), attempt: 1, expected: { action: 'retry', delayMs: 250 } },
    { name: 'interrupted stream retried', error: new StreamInterruptedError('cut', { provider: 'openai', retryable: true }), attempt: 1, expected: { action: 'retry', delayMs: 250 } },
    { name: 'no fourth retry', error: retryable(503), attempt: 4, expected: { action: 'fail' } },
    { name: '400 never, even if marked retryable', error: retryable(400), attempt: 1, expected: { action: 'fail' } },
    { name: '401 never, even if marked retryable', error: retryable(401), attempt: 1, expected: { action: 'fail' } },
    { name: '404 never', error: retryable(404), attempt: 1, expected: { action: 'fail' } },
    { name: 'not-retryable 429 (quota)', error: new ModelRequestError('quota', { provider: 'openai', status: 429 }), attempt: 1, expected: { action: 'fail' } },
    { name: 'context overflow goes to compaction', error: new ContextOverflowError('too long', { provider: 'openai', status: 400 }), attempt: 1, expected: { action: 'fail' } },
    { name: 'a bug is not retried', error: new TypeError('undefined is not a function'), attempt: 1, expected: { action: 'fail' } },
    { name: 'Retry-After honoured as given', error: retryable(429, 16_000), attempt: 1, expected: { action: 'retry', delayMs: 16_000 } },
    { name: 'Retry-After honoured beyond the backoff cap', error: retryable(503, 45_000), attempt: 2, expected: { action: 'retry', delayMs: 45_000 } },
    { name: 'Retry-After of exactly 60 s honoured', error: retryable(429, 60_000), attempt: 1, expected: { action: 'retry', delayMs: 60_000 } },
    { name: 'Retry-After of 0 falls back to backoff', error: retryable(429, 0), attempt: 1, expected: { action: 'retry', delayMs: 250 } },
  ];

  it.each(cases)('$name', ({ error, attempt, expected }) => {
    const verdict = retryVerdict(error, attempt, DEFAULT_RETRY_POLICY, half);
    expect(verdict.action).toBe(expected.action);
    if (expected.action === 'retry' && verdict.action === 'retry') expect(verdict.delayMs).toBe(expected.delayMs);
    if (verdict.action === 'fail') expect(verdict.error).toBe(error);
  });

  it('turns a Retry-After beyond 60 s into a RateLimitError verdict', () => {
    const error = retryable(429, 61_000);

    const verdict = retryVerdict(error, 1, DEFAULT_RETRY_POLICY, half);

    expect(verdict.action).toBe('fail');
    if (verdict.action !== 'fail') return;
    expect(verdict.error).toBeInstanceOf(RateLimitError);
    expect(verdict.error).toMatchObject({ status: 429, retryAfterMs: 61_000, retryable: false, provider: 'deepseek' });
    expect((verdict.error as Error).message).toMatch(/wait 61 s, more than the 60 s we wait/);
  });
});

describe('backoffDelay', () => {
  const full = DEFAULT_RETRY_POLICY;
  const equal = { ...DEFAULT_RETRY_POLICY, jitter: 'equal' as const };
  it.each([
    { attempt: 1, random: 1, policy: full, delay: 500 },
    { attempt: 2, random: 1, policy: full, delay: 1000 },
    { attempt: 3, random: 1, policy: full, delay: 2000 },
    { attempt: 7, random: 1, policy: full, delay: 30_000 },
    { attempt: 12, random: 1, policy: full, delay: 30_000 },
    { attempt: 1, random: 0, policy: full, delay: 0 },
    { attempt: 3, random: 0.25, policy: full, delay: 500 },
    { attempt: 1, random: 0, policy: equal, delay: 250 },
    { attempt: 1, random: 1, policy: equal, delay: 500 },
    { attempt: 3, random: 0.5, policy: equal, delay: 1500 },
    { attempt: 9, random: 0, policy: equal, delay: 15_000 },
  ])('attempt $attempt, random $random, $policy.jitter jitter → $delay ms', ({ attempt, random, policy, delay }) => {
    expect(backoffDelay(attempt, policy, () => random)).toBe(delay);
  });
});
