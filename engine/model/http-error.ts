import { ContextOverflowError, ModelError, ModelRequestError } from './model-errors.js';
import { retryAfterFromMessage, retryAfterMs, type HeaderReader } from './retry-after.js';

/** Statuses worth another attempt (SPEC §6), plus Anthropic's 529 "overloaded". */
export const RETRYABLE_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504, 529];

const CONTEXT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /maximum context length is \d+/i, // OpenAI, DeepSeek, vLLM, OpenRouter ("This endpoint's ...")
  /exceeds the context window/i, // OpenAI Responses wording
  /prompt is too long/i, // Anthropic (also through Bedrock)
  /exceed context limit/i, // Anthropic: input + max_tokens
  /exceeds the available context size/i, // llama.cpp server
  /longer than the model's (maximum )?context length/i, // vLLM
  /context[ _]length[ _]exceeded/i,
];

const NEVER_RETRY_RATE_LIMIT_PATTERNS: readonly RegExp[] = [
  /request too large/i, // one request bigger than the TPM budget: waiting cannot help
  /exceeded your current quota/i,
  /insufficient_quota/i,
  /enforced_spend_limit_reached/i,
  /spend limit/i,
];

/** What a provider's error body says, whatever its envelope (OpenAI, Anthropic, Cloudflare, plain text). */
export interface ErrorBody {
  readonly message: string;
  readonly type?: string;
  readonly code?: string;
  /** The whole body as text, for patterns that live outside `message` (e.g. `details.error_code`). */
  readonly raw: string;
}

export function readErrorBody(text: string): ErrorBody {
  const raw = text.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { message: raw.length > 0 ? raw.slice(0, 500) : 'no error message', raw };
  }
  const envelope = isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : parsed;
  if (!isRecord(envelope)) return { message: raw.slice(0, 500), raw };
  const message = typeof envelope['message'] === 'string' ? envelope['message'] : raw.slice(0, 500);
  const type = typeof envelope['type'] === 'string' ? envelope['type'] : undefined;
  const code = typeof envelope['code'] === 'string' ? envelope['code'] : undefined;
  return { message, raw, ...(type === undefined ? {} : { type }), ...(code === undefined ? {} : { code }) };
}

export function isContextOverflow(body: ErrorBody): boolean {
  if (body.code === 'context_length_exceeded') return true;
  return CONTEXT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(body.message));
}

export interface HttpFailure {
  readonly provider: string;
  readonly status: number;
  readonly headers: HeaderReader;
  readonly body: string;
  /** The variable holding the key, named in 401/403 messages. */
  readonly apiKeyEnv?: string;
  readonly now?: number;
}

/**
 * Maps a non-2xx response to our error hierarchy: context overflow → `ContextOverflowError`
 * (never retried as is); 408/429/5xx-transient → retryable `ModelError` with the server's wait;
 * everything else → `ModelRequestError`. A 429 that waiting cannot fix (request larger than the
 * TPM limit, quota or spend limit) and an explicit `x-should-retry: false` are not retryable.
 */
export function modelErrorFromHttp(failure: HttpFailure): ModelError {
  const { provider, status, headers } = failure;
  const body = readErrorBody(failure.body);
  const text = `${provider} ${status}: ${body.message}`;
  if (status === 413 || ((status === 400 || status === 422) && isContextOverflow(body))) {
    return new ContextOverflowError(text, { provider, status });
  }
  if (RETRYABLE_STATUSES.includes(status)) {
    const waitCannotHelp = status === 429 && NEVER_RETRY_RATE_LIMIT_PATTERNS.some((pattern) => pattern.test(body.raw));
    if (waitCannotHelp || headers.get('x-should-retry')?.trim() === 'false') {
      return new ModelRequestError(text, { provider, status, retryable: false });
    }
    const wait = retryAfterMs(headers, failure.now) ?? (status === 429 ? retryAfterFromMessage(body.message) : undefined);
    return new ModelError(text, { provider, status, retryable: true, ...(wait === undefined ? {} : { retryAfterMs: wait }) });
  }
  if (status === 401 || status === 403) {
    const hint = failure.apiKeyEnv === undefined ? '' : ` (check ${failure.apiKeyEnv})`;
    return new ModelRequestError(`${text}${hint}`, { provider, status });
  }
  if (status >= 400 && status < 500) return new ModelRequestError(text, { provider, status });
  return new ModelError(text, { provider, status, retryable: false });
}

/**
 * An error delivered inside a 200 stream (Anthropic `event: error`, some OpenAI-compatible servers'
 * `data: {"error": …}`): classified by its type and text, since there is no status.
 */
export function modelErrorFromStreamPayload(provider: string, payload: unknown): ModelError {
  const body = readErrorBody(JSON.stringify(payload));
  const text = `${provider} stream error: ${body.message}`;
  if (isContextOverflow(body)) return new ContextOverflowError(text, { provider });
  const transient = ['overloaded_error', 'api_error', 'rate_limit_error', 'server_error', 'timeout_error'];
  if (body.type === undefined || transient.includes(body.type)) {
    const status = body.type === 'overloaded_error' ? 529 : body.type === 'rate_limit_error' ? 429 : undefined;
    return new ModelError(text, { provider, retryable: true, ...(status === undefined ? {} : { status }) });
  }
  return new ModelRequestError(text, { provider });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
