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

/** The image types a model may be shown (`@path.png` references). */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * An image attached to a user message. The log records the reference (workspace path, content
 * hash, media type, size), never the bytes; `data` (base64) is filled in just before a request is
 * sent, from the file whose hash must still match (see engine/context/image-references.ts).
 */
export interface ImageAttachment {
  readonly path: string;
  readonly sha256: string;
  readonly mediaType: ImageMediaType;
  readonly bytes: number;
  readonly data?: string;
}

export interface UserModelMessage {
  readonly role: 'user';
  readonly seq: number;
  readonly source: UserMessageSource;
  readonly content: string;
  /** Images attached to the message, shown to the model beside its text. */
  readonly images?: readonly ImageAttachment[];
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
