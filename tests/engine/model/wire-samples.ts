/**
 * The project's own wire samples, written in the exact shapes real providers send: OpenAI-style
 * `data:`-only SSE ending in `data: [DONE]`, DeepSeek chunks with `usage: null` until the finish
 * chunk, Anthropic `event:` + `data:` pairs (sometimes padded with spaces before the closing brace).
 */

export type Json = Record<string, unknown>;

/** OpenAI-style SSE: one `data:` event per chunk, then `[DONE]` unless `done` is false. */
export function openAISse(chunks: readonly (Json | string)[], options: { done?: boolean } = {}): string {
  const events = chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);
  if (options.done !== false) events.push('data: [DONE]\n\n');
  return events.join('');
}

/** Anthropic-style SSE: `event: <type>` then `data: <json>`; `padding` adds spaces before the closing brace as live streams do. */
export function anthropicSse(events: readonly Json[], options: { padding?: number } = {}): string {
  return events
    .map((event) => {
      const json = JSON.stringify(event);
      const data = options.padding === undefined ? json : `${json.slice(0, -1)}${' '.repeat(options.padding)}}`;
      return `event: ${String(event['type'])}\ndata: ${data}\n\n`;
    })
    .join('');
}

/** An OpenAI chat.completion.chunk with one choice. */
export function openAIChunk(delta: Json, options: { finish?: string | null; usage?: Json | null; id?: string; model?: string; usageKey?: boolean } = {}): Json {
  const chunk: Json = {
    id: options.id ?? 'chatcmpl-Dq7sK2mWnX4vY8pLrT1aB3cE5fG9h',
    object: 'chat.completion.chunk',
    created: 1790000000,
    model: options.model ?? 'gpt-4.1-2025-04-14',
    system_fingerprint: 'fp_7c1e2a9b3d',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: options.finish ?? null }],
  };
  if (options.usage !== undefined || options.usageKey === true) chunk['usage'] = options.usage ?? null;
  return chunk;
}

/** The usage-only chunk OpenAI sends last with `stream_options.include_usage` (choices is empty). */
export function openAIUsageChunk(usage: Json, options: { id?: string; model?: string } = {}): Json {
  return {
    id: options.id ?? 'chatcmpl-Dq7sK2mWnX4vY8pLrT1aB3cE5fG9h',
    object: 'chat.completion.chunk',
    created: 1790000000,
    model: options.model ?? 'gpt-4.1-2025-04-14',
    system_fingerprint: 'fp_7c1e2a9b3d',
    choices: [],
    usage,
  };
}

/** A DeepSeek chunk: `usage: null` on every chunk but the finish chunk. */
export function deepSeekChunk(delta: Json, options: { finish?: string; usage?: Json; model?: string } = {}): Json {
  return {
    id: '5f0c8a1e-2b7d-4e93-9c61-0d4b7a3e8f12',
    object: 'chat.completion.chunk',
    created: 1790000100,
    model: options.model ?? 'deepseek-reasoner',
    system_fingerprint: 'fp_ffc7281d48_prod0820_fp8_kvcache',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: options.finish ?? null }],
    usage: options.usage ?? null,
  };
}

export function deepSeekUsage(hit: number, miss: number, completion: number, reasoning?: number): Json {
  return {
    prompt_tokens: hit + miss,
    completion_tokens: completion,
    total_tokens: hit + miss + completion,
    prompt_tokens_details: { cached_tokens: hit },
    ...(reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoning } }),
    prompt_cache_hit_tokens: hit,
    prompt_cache_miss_tokens: miss,
  };
}

export function openAIError(message: string, type: string, code: string | null, param: string | null = null): string {
  return JSON.stringify({ error: { message, type, param, code } });
}

export function anthropicError(type: string, message: string, requestId: string | null = 'req_011CWq8xY2zA4bC6dE8fG0hJ'): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId });
}

export function anthropicMessageStart(usage: Json, model = 'claude-sonnet-4-5-20250929'): Json {
  return {
    type: 'message_start',
    message: {
      id: 'msg_01Hq3vN8xZ2kR5tW7yB9cD4f', type: 'message', role: 'assistant', model, content: [],
      stop_reason: null, stop_sequence: null,
      usage: { cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, service_tier: 'standard', ...usage },
    },
  };
}

export const PING: Json = { type: 'ping' };
