import { describe, expect, it } from 'vitest';
import { nodeRetryVerdict, type NodeRetryPolicy, type NodeRetryVerdict } from '../../../engine/scheduler/retry-verdict.js';

const POLICY: NodeRetryPolicy = { maxAttempts: 4, baseDelayMs: 1_000, maxDelayMs: 5_000, jitter: 0.5 };

describe('nodeRetryVerdict', () => {
  it.each<[string, number, boolean, boolean, number, NodeRetryVerdict]>([
    ['first failure, no jitter drawn', 1, true, false, 0, { action: 'retry', delayMs: 1_000 }],
    ['second failure doubles', 2, true, false, 0, { action: 'retry', delayMs: 2_000 }],
    ['third failure doubles again', 3, true, false, 0, { action: 'retry', delayMs: 4_000 }],
    ['jitter takes off up to half', 2, true, false, 0.5, { action: 'retry', delayMs: 1_500 }],
    ['jitter at 90% of its range', 1, true, false, 0.9, { action: 'retry', delayMs: 550 }],
    ['attempts exhausted', 4, true, false, 0, { action: 'fail', reason: 'attempts-exhausted' }],
    ['not retryable', 1, false, false, 0, { action: 'fail', reason: 'not-retryable' }],
    ['aborted wins over everything', 1, true, true, 0, { action: 'fail', reason: 'aborted' }],
  ])('%s', (_name, attempt, retryable, aborted, random, expected) => {
    expect(nodeRetryVerdict({ attempt, retryable, aborted }, POLICY, () => random)).toEqual(expected);
  });

  it('caps the delay at maxDelayMs', () => {
    const policy = { ...POLICY, maxAttempts: 20, jitter: 0 };
    expect(nodeRetryVerdict({ attempt: 10, retryable: true, aborted: false }, policy, () => 0)).toEqual({ action: 'retry', delayMs: 5_000 });
  });

  it('never retries when maxAttempts is 1', () => {
    expect(nodeRetryVerdict({ attempt: 1, retryable: true, aborted: false }, { ...POLICY, maxAttempts: 1 }, () => 0)).toEqual({ action: 'fail', reason: 'attempts-exhausted' });
  });
});
