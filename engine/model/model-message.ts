/**
 * Provider-neutral messages, derived from the session log by `deriveMessages()`.
 * Every message names the log event it came from (`seq`), so a request can be traced back
 * to the exact events that formed it. Provider adapters translate these into their wire format.
 */

/** A tool call as the model asked for it. `args` is the parsed JSON object; `argsText` the raw text when the provider sent text that did not parse. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  readonly argsText?: string;
}

/** Why a user message is in the history. */
export type UserMessageSource =
  | 'user'
  | 'instruction'
  | 'handoff'
  | 'runtime-context'
  | 'memory'
  | 'compaction-summary'
  | 'note';

export interface UserModelMessage {
  readonly role: 'user';
  readonly seq: number;
  readonly source: UserMessageSource;
  readonly content: string;
}

export interface AssistantModelMessage {
  readonly role: 'assistant';
  readonly seq: number;
  readonly content: string;
  /** Chain of thought the provider returned (DeepSeek `reasoning_content`, Anthropic thinking). */
  readonly reasoning?: string;
  /** Opaque provider data that must be sent back verbatim (e.g. Anthropic thinking signatures). */
  readonly reasoningSignature?: string;
  readonly toolCalls: readonly ToolCall[];
}

export interface ToolModelMessage {
  readonly role: 'tool';
  readonly seq: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: string;
  readonly isError: boolean;
}

export type ModelMessage = UserModelMessage | AssistantModelMessage | ToolModelMessage;
