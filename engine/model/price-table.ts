import { lookupByModelKey } from './model-key-lookup.js';

/** USD per million tokens. `inputCacheWrite` is Anthropic's cache-write rate; absent means billed as a miss. */
export interface ModelPrice {
  readonly inputCacheMiss: number;
  readonly inputCacheHit: number;
  readonly output: number;
  readonly inputCacheWrite?: number;
}

/** Prices keyed by `provider:model` family (see model-key-lookup.ts for how keys match). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * List prices as published in late 2026. DeepSeek bills by UTC hour since 2026-08-16 (off-peak is
 * half); the peak rate is used so estimates are an upper bound. Its legacy names
 * (`deepseek-chat`, `deepseek-reasoner`) are billed as Flash. Local servers cost nothing.
 * Override any row in `.dagent/config.json` (`prices`).
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  'deepseek:deepseek-chat': { inputCacheMiss: 0.3, inputCacheHit: 0.006, output: 1.2 },
  'deepseek:deepseek-reasoner': { inputCacheMiss: 0.3, inputCacheHit: 0.006, output: 1.2 },
  'deepseek:deepseek-flash': { inputCacheMiss: 0.3, inputCacheHit: 0.006, output: 1.2 },
  'deepseek:deepseek-v4-flash': { inputCacheMiss: 0.3, inputCacheHit: 0.006, output: 1.2 },
  'deepseek:deepseek-v4-pro': { inputCacheMiss: 1.32, inputCacheHit: 0.044, output: 3.96 },
  'openai:gpt-4.1': { inputCacheMiss: 2, inputCacheHit: 0.5, output: 8 },
  'openai:gpt-4.1-mini': { inputCacheMiss: 0.4, inputCacheHit: 0.1, output: 1.6 },
  'openai:gpt-4.1-nano': { inputCacheMiss: 0.1, inputCacheHit: 0.025, output: 0.4 },
  'openai:gpt-4o': { inputCacheMiss: 2.5, inputCacheHit: 1.25, output: 10 },
  'openai:gpt-4o-mini': { inputCacheMiss: 0.15, inputCacheHit: 0.075, output: 0.6 },
  // Kimi (Moonshot) and GLM (Z.ai) cache prompts on their own (automatic prefix caches, no request
  // field) and bill hits at the lower rate; international USD list prices. GLM's mainland
  // endpoint (open.bigmodel.cn) bills in CNY: set your own rows under "prices" for it.
  'kimi:kimi-k2': { inputCacheMiss: 0.6, inputCacheHit: 0.15, output: 2.5 },
  'kimi:kimi-k2-thinking': { inputCacheMiss: 0.6, inputCacheHit: 0.15, output: 2.5 },
  'kimi:kimi-k2-turbo': { inputCacheMiss: 1.15, inputCacheHit: 0.15, output: 8 },
  'kimi:kimi-k2-thinking-turbo': { inputCacheMiss: 1.15, inputCacheHit: 0.15, output: 8 },
  'kimi:kimi-k2.5': { inputCacheMiss: 0.6, inputCacheHit: 0.1, output: 3 },
  'glm:glm-4.5': { inputCacheMiss: 0.6, inputCacheHit: 0.11, output: 2.2 },
  'glm:glm-4.5-air': { inputCacheMiss: 0.2, inputCacheHit: 0.03, output: 1.1 },
  'glm:glm-4.5v': { inputCacheMiss: 0.6, inputCacheHit: 0.11, output: 1.8 },
  'glm:glm-4.6': { inputCacheMiss: 0.6, inputCacheHit: 0.11, output: 2.2 },
  'glm:glm-4.7': { inputCacheMiss: 0.6, inputCacheHit: 0.11, output: 2.2 },
  'glm:glm-5': { inputCacheMiss: 1, inputCacheHit: 0.2, output: 3.2 },
  'anthropic:claude-sonnet-4-5': { inputCacheMiss: 3, inputCacheHit: 0.3, inputCacheWrite: 3.75, output: 15 },
  'anthropic:claude-sonnet-4': { inputCacheMiss: 3, inputCacheHit: 0.3, inputCacheWrite: 3.75, output: 15 },
  'anthropic:claude-haiku-4-5': { inputCacheMiss: 1, inputCacheHit: 0.1, inputCacheWrite: 1.25, output: 5 },
  'anthropic:claude-3-5-haiku': { inputCacheMiss: 0.8, inputCacheHit: 0.08, inputCacheWrite: 1, output: 4 },
  'anthropic:claude-opus-4-5': { inputCacheMiss: 5, inputCacheHit: 0.5, inputCacheWrite: 6.25, output: 25 },
  'anthropic:claude-opus-4-1': { inputCacheMiss: 15, inputCacheHit: 1.5, inputCacheWrite: 18.75, output: 75 },
  'anthropic:claude-opus-4': { inputCacheMiss: 15, inputCacheHit: 1.5, inputCacheWrite: 18.75, output: 75 },
};

/** Providers that run on the user's own machine: every model is free. */
export const FREE_PROVIDERS: readonly string[] = ['ollama', 'vllm', 'llamacpp', 'scripted'];

/** The default table with config rows laid over it (a config row replaces the whole default row). */
export function mergePriceTable(base: PriceTable, overrides: PriceTable | undefined): PriceTable {
  return overrides === undefined ? base : { ...base, ...overrides };
}

/** The price of `provider:model`, or undefined when the table has no row for it. */
export function priceOf(modelId: string, table: PriceTable): ModelPrice | undefined {
  const colon = modelId.indexOf(':');
  const provider = colon < 0 ? '' : modelId.slice(0, colon);
  const model = colon < 0 ? modelId : modelId.slice(colon + 1);
  const row = lookupByModelKey(table, provider, model);
  if (row !== undefined) return row;
  if (FREE_PROVIDERS.includes(provider)) return { inputCacheMiss: 0, inputCacheHit: 0, output: 0 };
  return undefined;
}
