import { anthropicRequestBody } from './anthropic-request.js';
import { AnthropicEventAccumulator } from './anthropic-stream.js';
import { DEFAULT_IDLE_TIMEOUT_MS, openEventStream, type FetchFunction } from './event-stream.js';
import { isRecord, modelErrorFromStreamPayload } from './http-error.js';
import { ModelRequestError, StreamInterruptedError, type ModelError } from './model-errors.js';
import type { ModelProvider, ModelRequest, StreamPart } from './model-provider.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicProviderOptions {
  /** Normally 'anthropic'; another id for an Anthropic-format endpoint of another vendor. */
  readonly id?: string;
  /** The host, e.g. `https://api.anthropic.com`; `/v1/messages` is appended. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly apiKeyEnv?: string;
  readonly contextWindow: (model: string) => number;
  /** Whether a model takes images (`image_url` parts / `image` blocks); none when omitted. */
  readonly acceptsImages?: (model: string) => boolean;
  readonly idleTimeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: FetchFunction;
}

/**
 * Anthropic Messages streaming. Errors arrive as HTTP statuses or as an `error` event inside a
 * 200 stream; both become our `ModelError`s (overloaded → retryable, prompt too long →
 * `ContextOverflowError`). A stream that ends before `message_stop` yields no tool call.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const id = options.id ?? 'anthropic';
  const url = `${options.baseUrl.replace(/\/+$/, '')}/v1/messages`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'anthropic-version': ANTHROPIC_VERSION,
    ...(options.apiKey === undefined ? {} : { 'x-api-key': options.apiKey }),
    ...options.headers,
  };
  return {
    id,
    contextWindow: options.contextWindow,
    acceptsImages: (model: string) => options.acceptsImages?.(model) ?? false,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamPart> {
      const accumulator = new AnthropicEventAccumulator(id);
      const items = openEventStream({
        provider: id,
        url,
        headers,
        body: anthropicRequestBody(request),
        signal,
        idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
        ...(options.apiKeyEnv === undefined ? {} : { apiKeyEnv: options.apiKeyEnv }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      });
      try {
        for await (const item of items) {
          if (item.kind === 'json') throw unexpectedJsonBody(id, item.text);
          yield* accumulator.push(item.data);
          if (accumulator.done) break;
        }
      } catch (error) {
        if (!(error instanceof StreamInterruptedError && error.retryable && accumulator.complete)) throw error;
      }
      if (!accumulator.complete) {
        throw new StreamInterruptedError(`${id}: the response ended before message_stop; its partial output was discarded`, {
          provider: id, retryable: true,
        });
      }
      yield* accumulator.finish();
    },
  };
}

/** A 200 with a JSON body where a stream was asked for: an error envelope is classified, anything else refused. */
function unexpectedJsonBody(provider: string, text: string): ModelError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isRecord(body) && (body['type'] === 'error' || isRecord(body['error']))) return modelErrorFromStreamPayload(provider, body);
  return new ModelRequestError(`${provider}: expected an event stream, got a JSON body: ${text.slice(0, 200)}`, { provider });
}
