import type { ModelMessage } from './model-message.js';

/** A tool as the model sees it: name, description and the JSON Schema of its arguments. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** Who is asking: the planner, a node of the plan, the compaction summarizer, or a plain ReAct agent. */
export type AgentId = 'planner' | 'summarizer' | 'react' | `node:${string}`;

export interface ModelParameters {
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
}

/** Everything a provider needs for one call. Built only by `buildRequest()` from the session log. */
export interface ModelRequest {
  readonly agent: AgentId;
  readonly model: string;
  readonly system: string;
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ToolSpec[];
  readonly parameters: ModelParameters;
  /** The run this request belongs to; the scripted provider scopes its prefix cache by it. */
  readonly sessionId: string;
}

export interface Usage {
  /** All prompt tokens, cache hits included. */
  readonly input: number;
  readonly output: number;
  /** Prompt tokens served from the provider's cache. */
  readonly cacheHit: number;
  /** Prompt tokens written to the cache (Anthropic), when reported. */
  readonly cacheWrite?: number;
  /** Output tokens spent on reasoning, when reported (already included in `output`). */
  readonly reasoning: number;
  /** True when the counts are gpt-tokenizer estimates, not numbers the provider reported. */
  readonly estimated?: boolean;
}

/** Why a model stopped producing output, in our words (each adapter maps its provider's). */
export const FINISH_REASONS = ['stop', 'tool-calls', 'length', 'content-filter', 'error', 'other'] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/** Our own stream-part union; no vendor type crosses a provider adapter. */
export type StreamPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | { readonly type: 'reasoning-signature'; readonly signature: string }
  | { readonly type: 'tool-call'; readonly id: string; readonly name: string; readonly args: unknown; readonly argsText?: string }
  | { readonly type: 'usage'; readonly usage: Usage }
  | { readonly type: 'finish'; readonly reason: FinishReason };

export interface ModelProvider {
  /** 'deepseek', 'openai', 'anthropic', 'ollama', 'scripted', ... */
  readonly id: string;
  /** Streams one model call. Throws `ModelError` subclasses on failure (see model-errors.ts). */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamPart>;
  /** The context window, in tokens, of a model of this provider. */
  contextWindow(model: string): number;
  /** Whether a model of this provider accepts images in user messages; absent: it does not. */
  acceptsImages?(model: string): boolean;
}
