import { DEFAULT_IDLE_TIMEOUT_MS, openEventStream, type FetchFunction } from './event-stream.js';
import { StreamInterruptedError } from './model-errors.js';
import type { ModelProvider, ModelRequest, StreamPart } from './model-provider.js';
import { OpenAIChunkAccumulator } from './openai-compatible-stream.js';
import { openAIRequestBody } from './openai-compatible-request.js';

export interface OpenAICompatibleProviderOptions {
  /** 'deepseek', 'openai', 'ollama', ...: names the provider in errors and usage records. */
  readonly id: string;
  /** Up to and including the API version, e.g. `https://api.deepseek.com/v1`. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  /** The variable the key came from, named when the server refuses it. */
  readonly apiKeyEnv?: string;
  readonly contextWindow: (model: string) => number;
  /** Whether a model takes images (`image_url` parts / `image` blocks); none when omitted. */
  readonly acceptsImages?: (model: string) => boolean;
  readonly reasoningRoundTrip?: boolean;
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Silence after which a response is abandoned as interrupted (default 120 s). */
  readonly idleTimeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: FetchFunction;
}

/**
 * Streaming chat completions for DeepSeek, OpenAI, vLLM, Ollama, llama.cpp server, Kimi, GLM
 * and any other server speaking the same protocol. No vendor type leaves this adapter: the
 * stream becomes our `StreamPart`s, failures our `ModelError`s. Retries are the caller's job.
 */
export function createOpenAICompatibleProvider(options: OpenAICompatibleProviderOptions): ModelProvider {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    ...options.headers,
  };
  return {
    id: options.id,
    contextWindow: options.contextWindow,
    acceptsImages: (model: string) => options.acceptsImages?.(model) ?? false,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamPart> {
      const accumulator = new OpenAIChunkAccumulator(options.id);
      const items = openEventStream({
        provider: options.id,
        url,
        headers,
        body: openAIRequestBody(request, {
          reasoningRoundTrip: options.reasoningRoundTrip ?? false,
          maxTokensField: options.maxTokensField ?? 'max_tokens',
        }),
        signal,
        idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
        ...(options.apiKeyEnv === undefined ? {} : { apiKeyEnv: options.apiKeyEnv }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      });
      try {
        for await (const item of items) {
          yield* item.kind === 'json' ? accumulator.pushCompletion(item.text) : accumulator.push(item.data);
          if (accumulator.done) break;
        }
      } catch (error) {
        // After finish_reason only the usage chunk was still to come: a cut there loses nothing we act on.
        if (!(error instanceof StreamInterruptedError && accumulator.complete)) throw error;
      }
      if (!accumulator.complete) {
        throw new StreamInterruptedError(
          `${options.id}: the response ended before the model finished (no finish_reason, no [DONE]); its partial output was discarded`,
          { provider: options.id, retryable: true },
        );
      }
      yield* accumulator.finish();
    },
  };
}
