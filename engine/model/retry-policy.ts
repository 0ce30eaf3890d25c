import { RETRYABLE_STATUSES } from './http-error.js';
import { ContextOverflowError, ModelError, RateLimitError } from './model-errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt (SPEC §6: 3). */
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  /** Cap of the exponential backoff. */
  readonly maxDelayMs: number;
  /** The longest server-requested wait we accept; beyond it the call fails with `RateLimitError`. */
  readonly maxRetryAfterMs: number;
  /** full: uniform in [0, backoff]; equal: backoff/2 + uniform in [0, backoff/2]. */
  readonly jitter: 'full' | 'equal';
  readonly retryableStatuses: readonly number[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  jitter: 'full',
  retryableStatuses: RETRYABLE_STATUSES,
};

export type RetryVerdict =
  | { readonly action: 'retry'; readonly delayMs: number; readonly reason: string }
  | { readonly action: 'fail'; readonly error: unknown; readonly reason: string };

/**
 * Whether to retry a failed model call, and after how long. Pure: the random source is injected.
 * `attempt` is the 1-based number of the attempt that just failed. Retried: errors the adapter
 * marked retryable whose status is in the policy's list, or that have no status (connection
 * errors, interrupted streams). Never: context overflow (compaction's job), 400/401 and any other
 * status outside the list, non-model errors (bugs). A server-requested wait is honoured up to
 * `maxRetryAfterMs`; a longer one fails the call with a `RateLimitError`.
 */
export function retryVerdict(error: unknown, attempt: number, policy: RetryPolicy, random: () => number): RetryVerdict {
  if (!(error instanceof ModelError)) return { action: 'fail', error, reason: 'not a model error' };
  if (error instanceof ContextOverflowError) return { action: 'fail', error, reason: 'context overflow goes to compaction' };
  if (!error.retryable) return { action: 'fail', error, reason: 'not retryable' };
  if (error.status !== undefined && !policy.retryableStatuses.includes(error.status)) {
    return { action: 'fail', error, reason: `status ${error.status} is never retried` };
  }
  if (attempt > policy.maxRetries) return { action: 'fail', error, reason: `gave up after ${policy.maxRetries} retries` };
  const requested = error.retryAfterMs;
  if (requested !== undefined && requested > policy.maxRetryAfterMs) {
    const rateLimit = new RateLimitError(
      `${error.message} (the server asked to wait ${formatSeconds(requested)}, more than the ${formatSeconds(policy.maxRetryAfterMs)} we wait)`,
      { provider: error.provider, retryable: false, retryAfterMs: requested, cause: error, ...(error.status === undefined ? {} : { status: error.status }) },
    );
    return { action: 'fail', error: rateLimit, reason: 'retry-after beyond the cap' };
  }
  if (requested !== undefined && requested > 0) return { action: 'retry', delayMs: requested, reason: 'server-requested wait' };
  return { action: 'retry', delayMs: backoffDelay(attempt, policy, random), reason: 'exponential backoff' };
}

/** min(cap, base · 2^(attempt−1)), jittered. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const unit = Math.min(1, Math.max(0, random()));
  const delay = policy.jitter === 'full' ? ceiling * unit : ceiling / 2 + (ceiling / 2) * unit;
  return Math.round(delay);
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
