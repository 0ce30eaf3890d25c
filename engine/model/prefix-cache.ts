import { createHash } from 'node:crypto';

/** DeepSeek caches prompts in units of 64 tokens; a partial unit is never a hit. */
export const PREFIX_CACHE_BLOCK_TOKENS = 64;

/**
 * A simulated provider prefix cache. Each request's tokens are cut into 64-token blocks; block i
 * is keyed by a hash chained over blocks 0..i, so a key stands for a whole prefix. The cache hit
 * of a request is the longest run of leading blocks whose keys an earlier request of the same
 * session stored: the longest common prefix with any earlier request, in whole blocks. One hash
 * per block makes a lookup O(request size), however long the session.
 */
export class PrefixCache {
  readonly #blockTokens: number;
  readonly #sessions = new Map<string, Set<string>>();

  constructor(blockTokens: number = PREFIX_CACHE_BLOCK_TOKENS) {
    this.#blockTokens = blockTokens;
  }

  /** Returns how many leading tokens were cached, then stores this request's blocks. */
  lookupAndStore(sessionId: string, tokens: readonly number[]): number {
    let stored = this.#sessions.get(sessionId);
    if (stored === undefined) {
      stored = new Set();
      this.#sessions.set(sessionId, stored);
    }
    let previous = '';
    let hitBlocks = 0;
    let stillHitting = true;
    const fullBlocks = Math.floor(tokens.length / this.#blockTokens);
    for (let block = 0; block < fullBlocks; block++) {
      const slice = tokens.slice(block * this.#blockTokens, (block + 1) * this.#blockTokens);
      const key = createHash('sha1').update(previous).update(Uint32Array.from(slice)).digest('hex');
      if (stillHitting && stored.has(key)) hitBlocks++;
      else stillHitting = false;
      stored.add(key);
      previous = key;
    }
    return hitBlocks * this.#blockTokens;
  }
}
