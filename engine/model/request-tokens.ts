import { keptByKey } from '../kept-by-key.js';
import type { ModelMessage } from './model-message.js';
import type { ModelRequest } from './model-provider.js';
import { requestParts, type RequestPart } from './request-text.js';
import { encodeTokens, encodeTokensOf, encodeTokensOfAsync } from './token-estimate.js';

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
  const known = knownParts(requestParts(request), memo);
  // The new messages are encoded together: one round trip to the tokenizer's thread.
  return withEncoded(known, encodeTokensOf(known.missing.map((part) => part.text)), memo);
}

/**
 * `requestTokenParts`, the new messages encoded while this thread goes on (the tokenizer's thread
 * encodes them): for a caller with time to wait, as a provider counts while its answer is on the way.
 * A system text or tool definition not seen lately is encoded the same way, once for the requests
 * that meet it at once: a run's first wide stage does not wait on this thread for its static prefix.
 */
export async function requestTokenPartsAsync(request: ModelRequest, memo?: WeakMap<ModelMessage, readonly number[]>): Promise<(readonly number[])[]> {
  const parts = requestParts(request);
  const unseen = parts.filter((part) => part.message === undefined && staticTokens.peek(part.text) === undefined);
  if (unseen.length > 0) await encodeStaticAsync(unseen.map((part) => part.text));
  const known = knownParts(parts, memo);
  return withEncoded(known, await encodeTokensOfAsync(known.missing.map((part) => part.text)), memo);
}

interface KnownParts {
  /** Each part's tokens, where they are known already. */
  readonly tokens: readonly (readonly number[] | undefined)[];
  /** The message parts still to encode, in order. */
  readonly missing: readonly RequestPart[];
}

/**
 * History messages are the same objects from step to step: each is tokenized once (`memo`). The
 * system text and tool definitions repeat across steps and nodes: tokenized once per text.
 */
function knownParts(parts: readonly RequestPart[], memo: WeakMap<ModelMessage, readonly number[]> | undefined): KnownParts {
  const tokens = parts.map((part) => (part.message === undefined ? staticTokens(part.text) : memo?.get(part.message)));
  return { tokens, missing: parts.filter((_, index) => tokens[index] === undefined) };
}

function withEncoded({ tokens, missing }: KnownParts, encoded: readonly (readonly number[])[], memo: WeakMap<ModelMessage, readonly number[]> | undefined): (readonly number[])[] {
  for (const [index, part] of missing.entries()) memo?.set(part.message!, encoded[index]!);
  let next = 0;
  return tokens.map((known) => known ?? encoded[next++]!);
}

/** Tokens of system texts and tool definitions seen lately, by their text. */
const staticTokens = keptByKey(512, (text: string): readonly number[] => encodeTokens(text));

/** The static texts being encoded without blocking, each once however many requests meet it. */
const staticEncoding = new Map<string, Promise<void>>();

/** Keeps the texts' tokens, encoded by the tokenizer's thread; one that fails is left to `staticTokens` (it says why). */
async function encodeStaticAsync(texts: readonly string[]): Promise<void> {
  const fresh = [...new Set(texts.filter((text) => !staticEncoding.has(text)))];
  if (fresh.length > 0) {
    const done = encodeTokensOfAsync(fresh).then(
      (encoded) => fresh.forEach((text, index) => staticTokens.keep(text, encoded[index]!)),
      () => undefined,
    );
    for (const text of fresh) staticEncoding.set(text, done);
    void done.then(() => fresh.forEach((text) => staticEncoding.delete(text)));
  }
  await Promise.all(texts.map((text) => staticEncoding.get(text)));
}
