import { DEFAULT_PRICE_TABLE, mergePriceTable, priceOf, type PriceTable } from '../../engine/read-face.js';
import type { CliContext } from '../context/cli-context.js';

/** The built-in prices with the configured `prices` over them. */
export function priceTable(context: CliContext): PriceTable {
  return mergePriceTable(DEFAULT_PRICE_TABLE, context.config.prices as PriceTable | undefined);
}

/** USD per call for plan estimates: input at the cache-miss rate. */
export function estimatePrice(context: CliContext, modelId: string | undefined): (inputTokens: number, outputTokens: number) => number {
  const price = modelId === undefined ? undefined : priceOf(modelId, priceTable(context));
  if (price === undefined) return () => 0;
  return (input, output) => (input * price.inputCacheMiss + output * price.output) / 1_000_000;
}
