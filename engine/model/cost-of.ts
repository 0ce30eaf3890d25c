import type { Usage } from './model-provider.js';
import { priceOf, type PriceTable } from './price-table.js';

export interface Cost {
  readonly usd: number;
  /** False when the model has no price: `usd` is then 0 and `note` says why. */
  readonly priced: boolean;
  readonly note?: string;
}

const TOKENS_PER_PRICE_UNIT = 1_000_000;

/**
 * The USD cost of one call. Prompt tokens split into cache hits, cache writes and misses
 * (misses = input − hits − writes); reasoning tokens are already part of `output` and are not
 * billed twice.
 */
export function costOf(usage: Usage, modelId: string, table: PriceTable): Cost {
  const price = priceOf(modelId, table);
  if (price === undefined) {
    return { usd: 0, priced: false, note: `no price for ${modelId} in the price table; counted as $0 (add it under "prices" in .dagent/config.json)` };
  }
  const cacheWrite = usage.cacheWrite ?? 0;
  const miss = Math.max(0, usage.input - usage.cacheHit - cacheWrite);
  const usd =
    (miss * price.inputCacheMiss +
      usage.cacheHit * price.inputCacheHit +
      cacheWrite * (price.inputCacheWrite ?? price.inputCacheMiss) +
      usage.output * price.output) /
    TOKENS_PER_PRICE_UNIT;
  return { usd, priced: true };
}
