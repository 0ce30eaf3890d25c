import { randomUUID } from 'node:crypto';
import { isRecord, modelErrorFromStreamPayload } from './http-error.js';
import { StreamInterruptedError } from './model-errors.js';
import type { FinishReason, StreamPart, Usage } from './model-provider.js';
import { parseToolArgs, synthesizeToolCallId } from './tool-args.js';

interface PendingToolCall {
  id: string | undefined;
  name: string | undefined;
  argsText: string;
  argsObject: unknown;
}

/**
 * Folds the chunks of an OpenAI-compatible chat-completions stream into our stream parts.
 * Text and reasoning are passed on as they arrive; tool calls are assembled and released only by
 * `finish()`, once the stream is known to be complete, so a stream cut mid-call never yields a
 * partial tool call. Tolerates the known server quirks (see the wire notes): indexes that do not
 * start at 0 or are missing, an index reused by another call, empty or missing ids, names repeated
 * as "", arguments split anywhere or given as an object, usage on the finish chunk, on a
 * `choices: []` chunk or under `x_groq`.
 */
export class OpenAIChunkAccumulator {
  readonly #provider: string;
  readonly #calls: PendingToolCall[] = [];
  readonly #callsByIndex = new Map<number, PendingToolCall>();
  #responseId: string | undefined;
  #rawFinishReason: string | undefined;
  #done = false;
  #usage: Usage | undefined;

  constructor(provider: string) {
    this.#provider = provider;
  }

  /** True once the server said it was finished (`finish_reason` or `[DONE]`). */
  get complete(): boolean {
    return this.#done || this.#rawFinishReason !== undefined;
  }

  /** True once `[DONE]` arrived: nothing more will come. */
  get done(): boolean {
    return this.#done;
  }

  /** One `data:` payload of the stream. */
  push(data: string): StreamPart[] {
    if (data.trim() === '[DONE]') {
      this.#done = true;
      return [];
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch (error) {
      throw new StreamInterruptedError(`${this.#provider}: unreadable stream chunk: ${data.slice(0, 200)}`, {
        provider: this.#provider, retryable: true, cause: error,
      });
    }
    if (!isRecord(chunk)) return [];
    if (chunk['error'] !== undefined && chunk['error'] !== null) throw modelErrorFromStreamPayload(this.#provider, chunk);
    return this.#readChunk(chunk);
  }

  /** A whole (non-streamed) completion, from a server that ignored `stream: true`. */
  pushCompletion(text: string): StreamPart[] {
    const parts = this.push(text.trim());
    this.#done = true;
    return parts;
  }

  /** The closing parts: the assembled tool calls, the usage if any, and the finish reason. */
  finish(): StreamPart[] {
    const parts: StreamPart[] = [];
    const responseId = this.#responseId ?? randomUUID();
    // A call that never got a name can be neither executed nor answered: it is left out.
    const calls = this.#calls.filter((call) => call.name !== undefined);
    calls.forEach((call, position) => {
      const name = call.name ?? '';
      const parsed = call.argsText.length === 0 && call.argsObject !== undefined ? { args: call.argsObject } : parseToolArgs(call.argsText);
      parts.push({ type: 'tool-call', id: call.id ?? synthesizeToolCallId(responseId, position, name), name, ...parsed });
    });
    if (this.#usage !== undefined) parts.push({ type: 'usage', usage: this.#usage });
    parts.push({ type: 'finish', reason: finishReasonFromOpenAI(this.#rawFinishReason, calls.length > 0) });
    return parts;
  }

  #readChunk(chunk: Record<string, unknown>): StreamPart[] {
    if (this.#responseId === undefined && typeof chunk['id'] === 'string' && chunk['id'] !== '') this.#responseId = chunk['id'];
    const choices = Array.isArray(chunk['choices']) ? chunk['choices'] : [];
    const choice: unknown = choices[0];
    const usage = chunkUsage(chunk, choice);
    if (usage !== undefined) this.#usage = usageFromOpenAI(usage);
    if (!isRecord(choice)) return [];
    const parts: StreamPart[] = [];
    const delta = isRecord(choice['delta']) ? choice['delta'] : isRecord(choice['message']) ? choice['message'] : undefined;
    if (delta !== undefined) {
      const reasoning = delta['reasoning_content'] ?? delta['reasoning'];
      if (typeof reasoning === 'string' && reasoning.length > 0) parts.push({ type: 'reasoning', text: reasoning });
      if (typeof delta['content'] === 'string' && delta['content'].length > 0) parts.push({ type: 'text', text: delta['content'] });
      if (Array.isArray(delta['tool_calls'])) for (const toolCall of delta['tool_calls']) if (isRecord(toolCall)) this.#addToolCallDelta(toolCall);
    }
    if (typeof choice['finish_reason'] === 'string' && choice['finish_reason'] !== '') this.#rawFinishReason = choice['finish_reason'];
    return parts;
  }

  #addToolCallDelta(delta: Record<string, unknown>): void {
    const fn = isRecord(delta['function']) ? delta['function'] : delta;
    const index = typeof delta['index'] === 'number' ? delta['index'] : undefined;
    const id = nonEmpty(delta['id']);
    const name = nonEmpty(fn['name']);
    let call: PendingToolCall | undefined;
    if (index !== undefined) {
      call = this.#callsByIndex.get(index);
      // Ollama has sent every call of a response at index 0: a different id means a new call.
      if (call !== undefined && id !== undefined && call.id !== undefined && call.id !== id) call = undefined;
    } else if (id !== undefined) {
      call = this.#calls.find((candidate) => candidate.id === id);
    } else if (name === undefined) {
      call = this.#calls.at(-1);
    }
    if (call === undefined) {
      call = { id: undefined, name: undefined, argsText: '', argsObject: undefined };
      this.#calls.push(call);
    }
    if (index !== undefined) this.#callsByIndex.set(index, call);
    if (id !== undefined && call.id === undefined) call.id = id;
    if (name !== undefined && call.name === undefined) call.name = name;
    const args = fn['arguments'];
    if (typeof args === 'string') call.argsText += args;
    else if (isRecord(args)) call.argsObject = args;
  }
}

/**
 * Where a chunk carries its usage: on the chunk (OpenAI, DeepSeek, GLM), under `x_groq` (Groq), or
 * on the final chunk's choice (Kimi documents `choices[0].usage` for streams).
 */
function chunkUsage(chunk: Record<string, unknown>, choice: unknown): Record<string, unknown> | undefined {
  if (isRecord(chunk['usage'])) return chunk['usage'];
  if (isRecord(chunk['x_groq']) && isRecord(chunk['x_groq']['usage'])) return chunk['x_groq']['usage'];
  if (isRecord(choice) && isRecord(choice['usage'])) return choice['usage'];
  return undefined;
}

/**
 * OpenAI usage as our Usage; `input` is the whole prompt. Cache hits come from DeepSeek's
 * `prompt_cache_hit_tokens`, OpenAI's and GLM's `prompt_tokens_details.cached_tokens` (GLM's
 * implicit context cache), or Kimi's `cached_tokens` beside `prompt_tokens` (Kimi's automatic
 * context cache); every one of them counts tokens already inside `prompt_tokens`.
 */
export function usageFromOpenAI(usage: Record<string, unknown>): Usage {
  const promptDetails = isRecord(usage['prompt_tokens_details']) ? usage['prompt_tokens_details'] : {};
  const completionDetails = isRecord(usage['completion_tokens_details']) ? usage['completion_tokens_details'] : {};
  const cacheWrite = count(promptDetails['cache_write_tokens']);
  return {
    input: count(usage['prompt_tokens']),
    output: count(usage['completion_tokens']),
    cacheHit: count(usage['prompt_cache_hit_tokens'] ?? promptDetails['cached_tokens'] ?? usage['cached_tokens']),
    reasoning: count(completionDetails['reasoning_tokens']),
    ...(cacheWrite > 0 ? { cacheWrite } : {}),
  };
}

/**
 * Tool calls present decide "tool-calls" whatever the server said (gpt-4o, Gemini and Ollama
 * have all ended tool-call streams with "stop", llama.cpp with "tool"), except a cut at the
 * output limit, which stays "length" so the agent knows the last call may be truncated.
 */
export function finishReasonFromOpenAI(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === 'length') return 'length';
  if (hasToolCalls) return 'tool-calls';
  switch (reason) {
    case undefined:
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'tool_calls':
    case 'function_call':
    case 'tool':
      return 'tool-calls';
    default:
      return 'other';
  }
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}
