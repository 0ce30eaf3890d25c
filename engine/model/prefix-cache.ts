import { createHash } from 'node:crypto';

/** DeepSeek caches prompts in units of 64 tokens; a partial unit is never a hit. */
export const PREFIX_CACHE_BLOCK_TOKENS = 64;

/** One session's stored block keys, and the last request's tokens with the keys of its full blocks. */
interface SessionBlocks {
  readonly stored: Set<string>;
  lastTokens: readonly number[];
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
    let session = this.#sessions.get(sessionId);
    if (session === undefined) {
      session = { stored: new Set(), lastTokens: [], lastKeys: [] };
      this.#sessions.set(sessionId, session);
    }
    const size = this.#blockTokens;
    const fullBlocks = Math.floor(tokens.length / size);
    const same = sameLeadingBlocks(tokens, session.lastTokens, Math.min(fullBlocks, session.lastKeys.length), size);
    const keys = session.lastKeys.slice(0, same);
    for (let block = same; block < fullBlocks; block++) {
      const slice = tokens.slice(block * size, (block + 1) * size);
      keys.push(createHash('sha1').update(keys.at(-1) ?? '').update(Uint32Array.from(slice)).digest('hex'));
    }
    let hitBlocks = 0;
    while (hitBlocks < fullBlocks && session.stored.has(keys[hitBlocks]!)) hitBlocks++;
    for (let block = same; block < fullBlocks; block++) session.stored.add(keys[block]!);
    session.lastTokens = tokens;
    session.lastKeys = keys;
    return hitBlocks * size;
  }
}

/** How many of the first `blocks` blocks of `tokens` equal those of `last`, token for token. */
function sameLeadingBlocks(tokens: readonly number[], last: readonly number[], blocks: number, size: number): number {
  for (let index = 0; index < blocks * size; index++) {
    if (tokens[index] !== last[index]) return Math.floor(index / size);
  }
  return blocks;
}
