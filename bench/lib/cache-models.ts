import { createHash } from 'node:crypto';
import { PrefixCache, estimateTextTokens, requestParts, type ModelRequest } from '../../engine/index.js';

/**
 * Prefix caches as the providers document them, fed the same requests, so `npm run bench -- cache`
 * can say what share of a run's input each would serve from cache. Every model is scoped to one
 * run (one API key, requests in the order they were sent) and learns only from earlier requests.
 */
export interface CacheModel {
  readonly name: string;
  /** The request's input tokens and how many of them were served from cache; then remembers what it leaves cached. */
  lookupAndStore(request: CacheModelRequest): { readonly input: number; readonly hit: number };
}

/** One request as the models see it: its tokens in OpenAI-compatible order, and its Anthropic body. */
export interface CacheModelRequest {
  readonly tokens: readonly number[];
  readonly anthropicBody: Readonly<Record<string, unknown>>;
}

/** DeepSeek: 64-token units, each keyed by the whole prefix up to it; a partial unit is never a hit. The scripted provider's own model. */
export function deepSeekModel(): CacheModel {
  const cache = new PrefixCache(64);
  return { name: 'DeepSeek (64-token units; the scripted provider)', lookupAndStore: (request) => ({ input: request.tokens.length, hit: cache.lookupAndStore('run', request.tokens) }) };
}

/** OpenAI: prompts of 1 024 tokens or more, hits in 128-token increments from the start. */
export function openAIModel(): CacheModel {
  const cache = new PrefixCache(128);
  return {
    name: 'OpenAI (1 024-token minimum, 128-token increments)',
    lookupAndStore: (request) => {
      const hit = cache.lookupAndStore('run', request.tokens);
      return { input: request.tokens.length, hit: hit >= 1024 ? hit : 0 };
    },
  };
}

/**
 * Anthropic: the prefix is tools, then system, then messages, in content blocks. A request writes
 * an entry at each `cache_control` breakpoint (when the prefix up to it reaches the model's
 * minimum, 1 024 tokens for Sonnet) and reads the longest entry found at a breakpoint or up to 20
 * blocks before one. Nothing between breakpoints is ever read back.
 */
export function anthropicModel(minTokens = 1024, lookbackBlocks = 20): CacheModel {
  const entries = new Set<string>();
  return {
    name: 'Anthropic (cache_control breakpoints, 20-block lookback)',
    lookupAndStore: (request) => {
      const blocks = anthropicBlocks(request.anthropicBody);
      let hit = 0;
      for (const [index, block] of blocks.entries()) {
        if (!block.breakpoint) continue;
        for (let back = index; back >= Math.max(0, index - lookbackBlocks); back--) {
          if (entries.has(blocks[back]!.key)) {
            hit = Math.max(hit, blocks[back]!.tokensThrough);
            break;
          }
        }
      }
      for (const block of blocks) if (block.breakpoint && block.tokensThrough >= minTokens) entries.add(block.key);
      return { input: blocks.at(-1)?.tokensThrough ?? 0, hit };
    },
  };
}

/** The best any prefix cache could do: the longest token-exact prefix shared with any earlier request. */
export function oracleModel(): CacheModel {
  const earlier: (readonly number[])[] = [];
  return {
    name: 'bound: longest prefix shared with any earlier request, token-exact',
    lookupAndStore: (request) => {
      let best = 0;
      for (const tokens of earlier) best = Math.max(best, commonPrefix(tokens, request.tokens));
      earlier.push(request.tokens);
      return { input: request.tokens.length, hit: best };
    },
  };
}

export function commonPrefix<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a[index] === b[index]) index++;
  return index;
}

interface AnthropicBlock {
  /** Stands for the whole prefix through this block. */
  readonly key: string;
  readonly tokensThrough: number;
  readonly breakpoint: boolean;
}

/** Tools, system blocks, then every message's content blocks, with chained keys. `cache_control` marks a breakpoint and is not content. */
function anthropicBlocks(body: Readonly<Record<string, unknown>>): AnthropicBlock[] {
  const raw: { label: string; block: Record<string, unknown> }[] = [];
  for (const tool of (body['tools'] ?? []) as Record<string, unknown>[]) raw.push({ label: 'tool', block: tool });
  for (const block of (body['system'] ?? []) as Record<string, unknown>[]) raw.push({ label: 'system', block });
  for (const [index, message] of ((body['messages'] ?? []) as { role: string; content: Record<string, unknown>[] }[]).entries()) {
    for (const block of message.content) raw.push({ label: `${index}:${message.role}`, block });
  }
  let key = '';
  let tokens = 0;
  return raw.map(({ label, block }) => {
    const { cache_control: breakpoint, ...content } = block;
    const text = `${label}\n${JSON.stringify(content)}`;
    key = createHash('sha1').update(key).update(text).digest('hex');
    tokens += estimateTextTokens(text);
    return { key, tokensThrough: tokens, breakpoint: breakpoint !== undefined };
  });
}

/**
 * A bound for every layout of the same content: a cache can serve only what an earlier request
 * sent, so a part (the system text, a tool, a message) that no earlier request carried is a miss
 * wherever it is placed, except for its start when an earlier part began the same way. Returns
 * the input tokens and the most of them any prefix cache could serve, whatever the order of the
 * parts.
 */
export function contentBound(requests: readonly ModelRequest[]): { readonly input: number; readonly hit: number } {
  const seen = new Set<string>();
  let input = 0;
  let hit = 0;
  for (const request of requests) {
    const parts = requestParts(request);
    for (const part of parts) {
      const tokens = estimateTextTokens(part.text);
      input += tokens;
      if (seen.has(part.text)) {
        hit += tokens;
        continue;
      }
      let longest = 0;
      for (const earlier of seen) longest = Math.max(longest, commonPrefix(earlier, part.text));
      if (longest > 0) hit += Math.min(tokens, estimateTextTokens(part.text.slice(0, longest)) + 1);
    }
    for (const part of parts) seen.add(part.text);
  }
  return { input, hit };
}
