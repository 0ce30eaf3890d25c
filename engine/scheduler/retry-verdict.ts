/** Bounded retries with exponential backoff and jitter for a node whose attempt failed. */
export interface NodeRetryPolicy {
  /** Attempts in total, the first included; 1 disables retries. */
  readonly maxAttempts: number;
  /** Delay before the second attempt, before jitter. */
  readonly baseDelayMs: number;
  /** Cap on the delay before jitter. */
  readonly maxDelayMs: number;
  /** Fraction of the delay taken off at random, 0 (none) to 1 (full jitter). */
  readonly jitter: number;
}

export const DEFAULT_NODE_RETRY_POLICY: NodeRetryPolicy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 30_000, jitter: 0.5 };

export interface FailedAttempt {
  /** The attempt that failed, 1-based, counted within this schedule. */
  readonly attempt: number;
  /** False for failures a retry cannot fix (a red test run, a refused write). */
  readonly retryable: boolean;
  /** The run was cancelled: never retry. */
  readonly aborted: boolean;
}

export type NodeRetryVerdict =
  | { readonly action: 'retry'; readonly delayMs: number }
  | { readonly action: 'fail'; readonly reason: 'not-retryable' | 'attempts-exhausted' | 'aborted' };

/**
 * Whether a failed attempt is retried and after how long: `baseDelayMs · 2^(attempt-1)` capped
 * at `maxDelayMs`, minus up to `jitter` of it at random. `random` returns a number in [0, 1).
 */
export function nodeRetryVerdict(failure: FailedAttempt, policy: NodeRetryPolicy, random: () => number): NodeRetryVerdict {
  if (failure.aborted) return { action: 'fail', reason: 'aborted' };
  if (!failure.retryable) return { action: 'fail', reason: 'not-retryable' };
  if (failure.attempt >= policy.maxAttempts) return { action: 'fail', reason: 'attempts-exhausted' };
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failure.attempt - 1));
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  return { action: 'retry', delayMs: Math.round(exponential * (1 - jitter * random())) };
}
