import { isRecord, modelErrorFromStreamPayload } from './http-error.js';
import { StreamInterruptedError } from './model-errors.js';
import type { FinishReason, StreamPart, Usage } from './model-provider.js';
import { parseToolArgs, synthesizeToolCallId } from './tool-args.js';

interface UsageCounters {
  input: number;
  cacheRead: number;
  cacheCreation: number;
  output: number;
}

interface ToolUseBlock {
  readonly id: string;
  readonly name: string;
  json: string;
  readonly initialInput: unknown;
}

/**
 * Folds Anthropic Messages stream events into our stream parts. Text and thinking pass through as
 * they arrive; tool_use blocks are assembled from `input_json_delta` fragments and released only by
 * `finish()`. `ping` may arrive anywhere. `message_delta` usage is cumulative and may repeat the
 * input and cache counts: the latest value of each field wins, nothing is added up.
 */
export class AnthropicEventAccumulator {
  readonly #provider: string;
  readonly #toolBlocks = new Map<number, ToolUseBlock>();
  readonly #toolOrder: ToolUseBlock[] = [];
  readonly #signatures = new Map<number, string>();
  readonly #usage: UsageCounters = { input: 0, cacheRead: 0, cacheCreation: 0, output: 0 };
  #hasUsage = false;
  #messageId: string | undefined;
  #stopReason: string | undefined;
  #stopped = false;

  constructor(provider: string) {
    this.#provider = provider;
  }

  /** True once `message_stop` (or a `message_delta` with a stop reason) arrived. */
  get complete(): boolean {
    return this.#stopped || this.#stopReason !== undefined;
  }

  get done(): boolean {
    return this.#stopped;
  }

  /** One server-sent event: its data payload (the `event:` name always equals `data.type`). */
  push(data: string): StreamPart[] {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch (error) {
      throw new StreamInterruptedError(`${this.#provider}: unreadable stream event: ${data.slice(0, 200)}`, {
        provider: this.#provider, retryable: true, cause: error,
      });
    }
    if (!isRecord(event)) return [];
    switch (event['type']) {
      case 'message_start': {
        const message = isRecord(event['message']) ? event['message'] : {};
        if (typeof message['id'] === 'string') this.#messageId = message['id'];
        if (isRecord(message['usage'])) this.#takeUsage(message['usage']);
        return [];
      }
      case 'content_block_start':
        return this.#startBlock(event);
      case 'content_block_delta':
        return this.#delta(event);
      case 'content_block_stop':
        return this.#stopBlock(event);
      case 'message_delta':
        if (isRecord(event['delta']) && typeof event['delta']['stop_reason'] === 'string') this.#stopReason = event['delta']['stop_reason'];
        if (isRecord(event['usage'])) this.#takeUsage(event['usage']);
        return [];
      case 'message_stop':
        this.#stopped = true;
        return [];
      case 'error':
        throw modelErrorFromStreamPayload(this.#provider, event);
      default: // ping, and event types newer than this adapter
        return [];
    }
  }

  finish(): StreamPart[] {
    const parts: StreamPart[] = [];
    this.#toolOrder.forEach((block, position) => {
      if (block.name === '') return; // nothing could execute or answer it
      const parsed = block.json.length === 0 ? { args: isRecord(block.initialInput) ? block.initialInput : {} } : parseToolArgs(block.json);
      const id = block.id !== '' ? block.id : synthesizeToolCallId(this.#messageId ?? 'anthropic', position, block.name);
      parts.push({ type: 'tool-call', id, name: block.name, ...parsed });
    });
    if (this.#hasUsage) parts.push({ type: 'usage', usage: this.usage() });
    parts.push({ type: 'finish', reason: finishReasonFromAnthropic(this.#stopReason) });
    return parts;
  }

  /** Our Usage: `input` is the whole prompt (Anthropic's `input_tokens` excludes cache reads and writes). */
  usage(): Usage {
    const { input, cacheRead, cacheCreation, output } = this.#usage;
    return {
      input: input + cacheRead + cacheCreation,
      output,
      cacheHit: cacheRead,
      reasoning: 0,
      ...(cacheCreation > 0 ? { cacheWrite: cacheCreation } : {}),
    };
  }

  #startBlock(event: Record<string, unknown>): StreamPart[] {
    const index = typeof event['index'] === 'number' ? event['index'] : -1;
    const block = isRecord(event['content_block']) ? event['content_block'] : {};
    switch (block['type']) {
      case 'tool_use': {
        const toolUse: ToolUseBlock = {
          id: typeof block['id'] === 'string' ? block['id'] : '',
          name: typeof block['name'] === 'string' ? block['name'] : '',
          json: '',
          initialInput: block['input'],
        };
        this.#toolBlocks.set(index, toolUse);
        this.#toolOrder.push(toolUse);
        return [];
      }
      case 'text':
        return typeof block['text'] === 'string' && block['text'].length > 0 ? [{ type: 'text', text: block['text'] }] : [];
      case 'thinking':
        return typeof block['thinking'] === 'string' && block['thinking'].length > 0 ? [{ type: 'reasoning', text: block['thinking'] }] : [];
      default:
        return [];
    }
  }

  #delta(event: Record<string, unknown>): StreamPart[] {
    const index = typeof event['index'] === 'number' ? event['index'] : -1;
    const delta = isRecord(event['delta']) ? event['delta'] : {};
    switch (delta['type']) {
      case 'text_delta':
        return typeof delta['text'] === 'string' && delta['text'].length > 0 ? [{ type: 'text', text: delta['text'] }] : [];
      case 'thinking_delta':
        return typeof delta['thinking'] === 'string' && delta['thinking'].length > 0 ? [{ type: 'reasoning', text: delta['thinking'] }] : [];
      case 'signature_delta':
        if (typeof delta['signature'] === 'string') this.#signatures.set(index, (this.#signatures.get(index) ?? '') + delta['signature']);
        return [];
      case 'input_json_delta': {
        const block = this.#toolBlocks.get(index);
        if (block !== undefined && typeof delta['partial_json'] === 'string') block.json += delta['partial_json'];
        return [];
      }
      default:
        return [];
    }
  }

  #stopBlock(event: Record<string, unknown>): StreamPart[] {
    const index = typeof event['index'] === 'number' ? event['index'] : -1;
    const signature = this.#signatures.get(index);
    if (signature === undefined) return [];
    this.#signatures.delete(index);
    return [{ type: 'reasoning-signature', signature }];
  }

  #takeUsage(usage: Record<string, unknown>): void {
    this.#hasUsage = true;
    const take = (field: string, key: keyof UsageCounters): void => {
      const value = usage[field];
      if (typeof value === 'number' && Number.isFinite(value)) this.#usage[key] = value;
    };
    take('input_tokens', 'input');
    take('cache_read_input_tokens', 'cacheRead');
    take('cache_creation_input_tokens', 'cacheCreation');
    take('output_tokens', 'output');
  }
}

export function finishReasonFromAnthropic(reason: string | undefined): FinishReason {
  switch (reason) {
    case undefined:
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}
