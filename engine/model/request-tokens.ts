import { keptByKey } from '../kept-by-key.js';
import type { ModelMessage } from './model-message.js';
import type { ModelRequest } from './model-provider.js';
import { requestParts } from './request-text.js';
import { encodeTokens } from './token-estimate.js';

/**
 * The tokens of a request in the order a provider sees them: system, tools, then messages. Each
 * part is tokenized on its own, so appending a message never changes the tokens before it, as a
 * real prefix cache requires.
 */
export function requestTokens(request: ModelRequest, memo?: WeakMap<ModelMessage, readonly number[]>): number[] {
  return requestTokenParts(request, memo).flat();
}

/**
 * `requestTokens` as the tokens of each part, in order: the same arrays from request to request
 * for what did not change (a history message, the system text, the tools), so a prefix cache can
 * tell a shared part by identity without comparing its tokens.
 */
export function requestTokenParts(request: ModelRequest, memo?: WeakMap<ModelMessage, readonly number[]>): (readonly number[])[] {
  const parts: (readonly number[])[] = [];
  for (const part of requestParts(request)) {
    // History messages are the same objects from step to step: tokenize each once. The system
    // text and tool definitions repeat across steps and nodes: tokenized once per text.
    if (part.message === undefined) {
      parts.push(staticTokens(part.text));
      continue;
    }
    let encoded = memo?.get(part.message);
    if (encoded === undefined) {
      encoded = encodeTokens(part.text);
      memo?.set(part.message, encoded);
    }
    parts.push(encoded);
  }
  return parts;
}

/** Tokens of system texts and tool definitions seen lately, by their text. */
const staticTokens = keptByKey(512, (text: string): readonly number[] => encodeTokens(text));
