import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICE_TABLE, costOf, mergePriceTable, priceOf, type Usage } from '../../../engine/model/index.js';

const usage = (input: number, cacheHit: number, output: number, extra: Partial<Usage> = {}): Usage => ({ input, cacheHit, output, reasoning: 0, ...extra });

describe('priceOf', () => {
  it.each([
    ['openai:gpt-4.1', 2],
    ['openai:gpt-4.1-2025-04-14', 2],
    ['openai:gpt-4.1-mini', 0.4],
    ['openai:gpt-4.1-mini-2025-04-14', 0.4],
    ['openai:gpt-4o', 2.5],
    ['anthropic:claude-sonnet-4-5-20250929', 3],
    ['anthropic:claude-haiku-4-5', 1],
    ['anthropic:claude-opus-4-1-20250805', 15],
    ['deepseek:deepseek-chat', 0.3],
    ['ollama:qwen2.5-coder:7b', 0],
    ['scripted:examples/demo.json', 0],
  ])('%s costs $%d per million input tokens', (modelId, inputCacheMiss) => {
    expect(priceOf(modelId, DEFAULT_PRICE_TABLE)?.inputCacheMiss).toBe(inputCacheMiss);
  });

  it('does not mistake gpt-4 for gpt-4o or gpt-4.1', () => {
    expect(priceOf('openai:gpt-4', DEFAULT_PRICE_TABLE)).toBeUndefined();
  });
});

describe('costOf', () => {
  it('bills DeepSeek cache hits at the hit rate and the rest at the miss rate', () => {
    const cost = costOf(usage(495, 320, 9), 'deepseek:deepseek-chat', DEFAULT_PRICE_TABLE);
    expect(cost.priced).toBe(true);
    expect(cost.usd).toBeCloseTo((175 * 0.3 + 320 * 0.006 + 9 * 1.2) / 1e6, 15);
  });

  it('bills OpenAI cached tokens at the cached rate', () => {
    expect(costOf(usage(4020, 4012, 4), 'openai:gpt-4.1', DEFAULT_PRICE_TABLE).usd).toBeCloseTo((8 * 2 + 4012 * 0.5 + 4 * 8) / 1e6, 15);
  });

  it('bills Anthropic cache writes at the write rate', () => {
    expect(costOf(usage(1532, 1111, 33, { cacheWrite: 418 }), 'anthropic:claude-haiku-4-5', DEFAULT_PRICE_TABLE).usd).toBeCloseTo((3 * 1 + 1111 * 0.1 + 418 * 1.25 + 33 * 5) / 1e6, 15);
  });

  it('does not bill reasoning tokens twice: they are part of output', () => {
    const plain = costOf(usage(100, 0, 50), 'deepseek:deepseek-reasoner', DEFAULT_PRICE_TABLE);
    const withReasoning = costOf(usage(100, 0, 50, { reasoning: 40 }), 'deepseek:deepseek-reasoner', DEFAULT_PRICE_TABLE);
    expect(withReasoning.usd).toBe(plain.usd);
  });

  it('costs an unknown model $0 and says so', () => {
    const cost = costOf(usage(1000, 0, 100), 'openai:gpt-9-preview', DEFAULT_PRICE_TABLE);
    expect(cost).toEqual({ usd: 0, priced: false, note: expect.stringMatching(/no price for openai:gpt-9-preview/) });
  });

  it('local models are free and priced', () => {
    expect(costOf(usage(1000, 0, 100), 'ollama:qwen2.5-coder', DEFAULT_PRICE_TABLE)).toEqual({ usd: 0, priced: true });
  });

  it('takes config prices over the defaults, and prices new models', () => {
    const table = mergePriceTable(DEFAULT_PRICE_TABLE, {
      'deepseek:deepseek-chat': { inputCacheMiss: 0.15, inputCacheHit: 0.003, output: 0.6 },
      'kimi:kimi-k2': { inputCacheMiss: 0.6, inputCacheHit: 0.15, output: 2.5 },
    });
    expect(costOf(usage(1_000_000, 0, 0), 'deepseek:deepseek-chat', table).usd).toBeCloseTo(0.15, 12);
    expect(costOf(usage(1_000_000, 1_000_000, 1_000_000), 'kimi:kimi-k2-0905-preview', table).usd).toBeCloseTo(2.65, 12);
  });
});
