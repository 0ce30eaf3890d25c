import { createHash } from 'node:crypto';

/** DeepSeek caches prompts in units of 64 tokens; a partial unit is never a hit. */
export const PREFIX_CACHE_BLOCK_TOKENS = 64;

/** One session's stored block keys, and the last request's tokens (by part) with the keys of its full blocks. */
interface SessionBlocks {
  readonly stored: Set<string>;
  lastParts: readonly (readonly number[])[];
  lastKeys: readonly string[];
}

/**
 * A simulated provider prefix cache. Each request's tokens are cut into 64-token blocks; block i
 * is keyed by a hash chained over blocks 0..i, so a key stands for a whole prefix. The cache hit
 * of a request is the longest run of leading blocks whose keys an earlier request of the same
 * session stored: the longest common prefix with any earlier request, in whole blocks. One hash
 * per block makes a lookup O(request size), however long the session; the leading blocks a
 * request shares with the session's previous one (the system text and tools every node sends, the
 * history a step repeats) take that request's keys instead of being hashed again.
 */
export class PrefixCache {
  readonly #blockTokens: number;
  readonly #sessions = new Map<string, SessionBlocks>();

  constructor(blockTokens: number = PREFIX_CACHE_BLOCK_TOKENS) {
    this.#blockTokens = blockTokens;
  }

  /** Returns how many leading tokens were cached, then stores this request's blocks. */
  lookupAndStore(sessionId: string, tokens: readonly number[]): number {
    return this.lookupAndStoreParts(sessionId, [tokens]);
  }

  /**
   * `lookupAndStore` for a request given as the tokens of its parts, in order. A part that is the
   * same array as the previous request's part at its place is known equal without a comparison.
   */
  lookupAndStoreParts(sessionId: string, parts: readonly (readonly number[])[]): number {
    let session = this.#sessions.get(sessionId);
    if (session === undefined) {
      session = { stored: new Set(), lastParts: [], lastKeys: [] };
      this.#sessions.set(sessionId, session);
    }
    const size = this.#blockTokens;
    let total = 0;
    for (const part of parts) total += part.length;
    const fullBlocks = Math.floor(total / size);
    const same = Math.min(Math.floor(sharedLeadingTokens(parts, session.lastParts) / size), fullBlocks, session.lastKeys.length);
    const keys = session.lastKeys.slice(0, same);
    if (same < fullBlocks) {
      const tail = tokensFrom(parts, same * size);
      for (let block = same; block < fullBlocks; block++) {
        const slice = tail.slice((block - same) * size, (block - same + 1) * size);
        keys.push(createHash('sha1').update(keys.at(-1) ?? '').update(Uint32Array.from(slice)).digest('hex'));
      }
    }
    let hitBlocks = 0;
    while (hitBlocks < fullBlocks && session.stored.has(keys[hitBlocks]!)) hitBlocks++;
    for (let block = same; block < fullBlocks; block++) session.stored.add(keys[block]!);
    session.lastParts = parts;
    session.lastKeys = keys;
    return hitBlocks * size;
  }
}

/**
 * How many leading tokens two requests surely share, part by part: a part that is the same array
 * counts whole; the first part that differs counts up to its first different token, and ends the
 * count (a count that stops early only costs hashing again, never a wrong hit).
 */
function sharedLeadingTokens(parts: readonly (readonly number[])[], last: readonly (readonly number[])[]): number {
  let shared = 0;
  for (let index = 0; index < parts.length && index < last.length; index++) {
    const part = parts[index]!;
    const before = last[index]!;
    if (part === before) {
      shared += part.length;
      continue;
    }
    const length = Math.min(part.length, before.length);
    let same = 0;
    while (same < length && part[same] === before[same]) same++;
    shared += same;
    if (same < part.length || same < before.length) return shared;
  }
  return shared;
}

/** The request's tokens from position `from` on, as one array. */
function tokensFrom(parts: readonly (readonly number[])[], from: number): number[] {
  const tokens: number[] = [];
  let position = 0;
  for (const part of parts) {
    if (position + part.length > from) {
      for (let index = Math.max(0, from - position); index < part.length; index++) tokens.push(part[index]!);
    }
    position += part.length;
  }
  return tokens;
}
