import type { ToolCall } from './model-message.js';
import { abortReason, abortableSleep } from './abort-reason.js';
import type { FinishReason, ModelProvider, ModelRequest, StreamPart, Usage } from './model-provider.js';
import { DEFAULT_RETRY_POLICY, retryVerdict, type RetryPolicy } from './retry-policy.js';
import { estimateMessagesTokens, estimateSystemTokens, estimateTextTokens, estimateToolTokens } from './token-estimate.js';

/** One model call, collected: what the agent appends as the assistant message. */
export interface ModelResponse {
  readonly content: string;
  readonly reasoning?: string;
  readonly reasoningSignature?: string;
  readonly toolCalls: readonly ToolCall[];
  /** As the provider reported it, or estimated (`estimated: true`) when it reported none. */
  readonly usage: Usage;
  readonly finishReason: FinishReason;
  /** How many attempts the call took (1 when the first one succeeded). */
  readonly attempts: number;
}

export interface RetryNotice {
  /** The 1-based number of the attempt that failed. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: unknown;
}

export interface CallModelOptions {
  readonly signal: AbortSignal;
  /** Every stream part as it arrives (for live display); a failed attempt's parts were shown too, `onRetry` follows them. */
  readonly onPart?: (part: StreamPart) => void;
  readonly onRetry?: (notice: RetryNotice) => void;
  readonly retryPolicy?: RetryPolicy;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1); injectable for tests. */
  readonly random?: () => number;
}

/**
 * Calls a provider and collects its stream into a `ModelResponse`, retrying the whole call as the
 * retry policy says (a failed attempt's partial output is dropped, never merged). The error that
 * ends the call is thrown as it is: `ContextOverflowError` untouched for compaction,
 * `RateLimitError` when the server asked for too long a wait, the abort reason when `signal` fired.
 */
export async function callModel(provider: ModelProvider, request: ModelRequest, options: CallModelOptions): Promise<ModelResponse> {
  const { signal } = options;
  const policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw abortReason(signal);
    try {
      return await collectResponse(provider, request, options, attempt);
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      const verdict = retryVerdict(error, attempt, policy, random);
      if (verdict.action === 'fail') throw verdict.error;
      options.onRetry?.({ attempt, delayMs: verdict.delayMs, error });
      await sleep(verdict.delayMs, signal);
    }
  }
}

async function collectResponse(provider: ModelProvider, request: ModelRequest, options: CallModelOptions, attempt: number): Promise<ModelResponse> {
  let content = '';
  let reasoning: string | undefined;
  let reasoningSignature: string | undefined;
  const toolCalls: ToolCall[] = [];
  let usage: Usage | undefined;
  let finishReason: FinishReason | undefined;
  for await (const part of provider.stream(request, options.signal)) {
    options.onPart?.(part);
    switch (part.type) {
      case 'text':
        content += part.text;
        break;
      case 'reasoning':
        reasoning = (reasoning ?? '') + part.text;
        break;
      case 'reasoning-signature':
        reasoningSignature = part.signature;
        break;
      case 'tool-call':
        toolCalls.push({ id: part.id, name: part.name, args: part.args, ...(part.argsText === undefined ? {} : { argsText: part.argsText }) });
        break;
      case 'usage':
        usage = part.usage;
        break;
      case 'finish':
        finishReason = part.reason;
        break;
    }
  }
  const response = { content, toolCalls, ...(reasoning === undefined ? {} : { reasoning }), ...(reasoningSignature === undefined ? {} : { reasoningSignature }) };
  return {
    ...response,
    usage: usage ?? estimateUsage(request, response),
    finishReason: finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
    attempts: attempt,
  };
}

/** Usage counted with gpt-tokenizer, for providers that report none (some local servers, a stream cut before its usage chunk). */
export function estimateUsage(
  request: ModelRequest,
  response: { readonly content: string; readonly reasoning?: string; readonly toolCalls: readonly ToolCall[] },
): Usage {
  let input = estimateSystemTokens(request.system) + estimateToolTokens(request.tools);
  for (const tokens of estimateMessagesTokens(request.messages)) input += tokens;
  const reasoning = estimateTextTokens(response.reasoning ?? '');
  let output = estimateTextTokens(response.content) + reasoning;
  for (const call of response.toolCalls) output += estimateTextTokens(`${call.name} ${call.argsText ?? JSON.stringify(call.args)}`);
  return { input, output, cacheHit: 0, reasoning, estimated: true };
}
