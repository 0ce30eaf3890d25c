import { estimateMessageTokens, estimateSystemTokens, estimateTextTokens, estimateToolTokens, type ModelMessage, type ToolSpec } from '../model/index.js';
import type { Session, SurfaceEvent } from '../session/index.js';
import type { SurfaceRange } from './select-range.js';
import { groupTurns, type SurfaceLayout } from './turns.js';

/** The system prompt and tools a request carries besides its messages. */
export interface PromptParts {
  readonly system: string;
  readonly tools: readonly ToolSpec[];
}

/**
 * A surface frozen at one moment, with its messages, turns and token counts: what every stage
 * of a compaction decides on. Per-message tokens are estimated lazily, once each.
 */
export interface SurfaceView {
  readonly surface: readonly SurfaceEvent[];
  readonly messages: readonly ModelMessage[];
  readonly layout: SurfaceLayout;
  readonly generation: number;
  /** Tokens of the system prompt and tools. */
  readonly overheadTokens: number;
  /** Tokens of the whole request: messages and overhead. */
  readonly tokens: number;
  /** Tokens of the messages alone: the sum of `tokensOf` over the surface. */
  readonly messageTokens: number;
  tokensOf(index: number): number;
  /** A cheap guess of `tokensOf`, from the text's length and the surface's tokens per character. */
  estimateOf(index: number): number;
  tokensIn(range: SurfaceRange): number;
}

export function viewSurface(session: Session, overheadTokens: number): SurfaceView {
  const messages = [...session.deriveMessages()];
  const surface = session.surface();
  const messageTokens = session.messageTokens();
  const cache: (number | undefined)[] = new Array(messages.length);
  const tokensOf = (index: number): number => (cache[index] ??= estimateMessageTokens(messages[index]!));
  const sum = (from: number, to: number): number => {
    let total = 0;
    for (let index = from; index <= to; index += 1) total += tokensOf(index);
    return total;
  };
  let tokensPerChar: number | undefined;
  const estimateOf = (index: number): number => {
    tokensPerChar ??= messageTokens / Math.max(1, messages.reduce((total, message) => total + messageChars(message), 0));
    return Math.ceil(messageChars(messages[index]!) * tokensPerChar);
  };
  return {
    surface,
    messages,
    layout: groupTurns(surface),
    generation: session.replaceGeneration,
    overheadTokens,
    tokens: messageTokens + overheadTokens,
    messageTokens,
    tokensOf,
    estimateOf,
    // A large range is the total less what lies outside it: estimating each message again would
    // cost as much as deriving the whole surface.
    tokensIn(range) {
      const inside = range.last - range.first + 1;
      if (inside <= messages.length - inside) return sum(range.first, range.last);
      return messageTokens - sum(0, range.first - 1) - sum(range.last + 1, messages.length - 1);
    },
  };
}

function messageChars(message: ModelMessage): number {
  if (message.role !== 'assistant') return message.content.length;
  let chars = message.content.length + (message.reasoning?.length ?? 0);
  for (const call of message.toolCalls) chars += call.name.length + (call.argsText ?? JSON.stringify(call.args) ?? '').length;
  return chars;
}

/** Tokens of a system prompt and tool set. */
export function promptTokens(prompt: PromptParts | undefined): number {
  if (prompt === undefined) return 0;
  return estimateSystemTokens(prompt.system) + estimateToolTokens(prompt.tools);
}
