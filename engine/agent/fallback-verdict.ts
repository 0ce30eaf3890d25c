import { ContextOverflowError, ModelError, ModelRequestError, RateLimitError, ScriptExhaustedError } from '../model/model-errors.js';

import type { FALLBACK_REASONS } from '../session/index.js';

/** Why a model call's failure hands the agent to its next model. */
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/** A failure the next model may not share: an unknown model id in the provider's words. */
const UNKNOWN_MODEL = /\bmodel\b.*\b(?:not[ _]exists?|does not exist|not[ _]found|unknown|is not supported|invalid)\b|\b(?:unknown|invalid)[ _]model\b|model_not_found/i;

/**
 * Whether a failed model call (after `callModel`'s own retries) should go to the next model of
 * the agent's list, and why. Pure. Yes for: a transient failure that outlived its retries (a 5xx
 * storm, an overloaded or rate-limited provider, a dropped stream), a server that asked to wait
 * longer than we do, an unknown model, and a context overflow that compaction could not fix
 * (the caller decides that one: pass the overflow only after compaction failed). No for the rest
 * (a refused key, a malformed request, a script with no turn left, a bug): the next model would
 * fail the same way, or the user must act.
 */
export function fallbackVerdict(error: unknown): FallbackReason | undefined {
  if (!(error instanceof ModelError) || error instanceof ScriptExhaustedError) return undefined;
  if (error instanceof ContextOverflowError) return 'context-overflow';
  if (error instanceof RateLimitError) return 'rate-limited';
  if (error.status === 401 || error.status === 403) return undefined;
  if ((error.status === 404 || error.status === 400 || error.status === 422) && UNKNOWN_MODEL.test(error.message)) return 'unknown-model';
  if (error.retryable) return 'retries-exhausted';
  if (error instanceof ModelRequestError) return error.status === 429 ? 'rate-limited' : undefined;
  // A status-less or 5xx failure the adapter did not mark retryable (e.g. a 501): the server is the problem.
  return error.status === undefined || error.status >= 500 ? 'retries-exhausted' : undefined;
}
