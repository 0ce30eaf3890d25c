import { describe, expect, it } from 'vitest';
import { CONTEXT_WINDOWS, InvalidModelIdError, PROVIDERS, contextWindowOf, parseModelId } from '../../../engine/model/index.js';

describe('parseModelId', () => {
  it.each([
    ['deepseek:deepseek-chat', 'deepseek', 'deepseek-chat'],
    ['openai:gpt-4.1', 'openai', 'gpt-4.1'],
    ['anthropic:claude-sonnet-4-5', 'anthropic', 'claude-sonnet-4-5'],
    ['ollama:qwen2.5-coder:7b', 'ollama', 'qwen2.5-coder:7b'],
    ['vllm:Qwen/Qwen3-Coder-30B-A3B-Instruct', 'vllm', 'Qwen/Qwen3-Coder-30B-A3B-Instruct'],
    ['llamacpp:local', 'llamacpp', 'local'],
    ['kimi:kimi-k2-0905-preview', 'kimi', 'kimi-k2-0905-preview'],
    ['glm:glm-4.6', 'glm', 'glm-4.6'],
    ['scripted:examples/demo/model.json', 'scripted', 'examples/demo/model.json'],
    [' DeepSeek:deepseek-chat ', 'deepseek', 'deepseek-chat'],
  ])('%s → %s / %s', (text, provider, model) => {
    expect(parseModelId(text)).toEqual({ provider, model, id: `${provider}:${model}` });
  });

  it.each([
    ['deepseek-chat', /invalid model id "deepseek-chat": expected provider:model/],
    ['mistral:mistral-large', /unknown provider "mistral" \(known: deepseek, openai, anthropic, ollama, vllm, llamacpp, kimi, glm, scripted\)/],
    ['openai:', /missing the model name after "openai:"/],
    ['', /expected provider:model/],
  ])('refuses %j with one clear line', (text, message) => {
    expect(() => parseModelId(text)).toThrow(InvalidModelIdError);
    expect(() => parseModelId(text)).toThrow(message);
  });
});

describe('contextWindowOf', () => {
  it.each([
    ['openai', 'gpt-4.1', 1_047_576],
    ['openai', 'gpt-4.1-2025-04-14', 1_047_576],
    ['openai', 'gpt-4o-mini', 128_000],
    ['openai', 'gpt-4-turbo', 128_000],
    ['anthropic', 'claude-sonnet-4-5-20250929', 200_000],
    ['anthropic', 'claude-future-9', 200_000],
    ['deepseek', 'deepseek-chat', 131_072],
    ['deepseek', 'deepseek-v4-pro', 1_000_000],
    ['ollama', 'llama3.2', 32_768],
    ['kimi', 'kimi-k2-0905-preview', 262_144],
  ] as const)('%s:%s → %d', (provider, model, window) => {
    expect(contextWindowOf(provider, model)).toBe(window);
  });

  it('lets config override the table, by full id or by bare model name', () => {
    expect(contextWindowOf('ollama', 'qwen2.5-coder:7b', { 'ollama:qwen2.5-coder': 65_536 })).toBe(65_536);
    expect(contextWindowOf('deepseek', 'deepseek-chat', { 'deepseek-chat': 65_536 })).toBe(65_536);
    expect(contextWindowOf('openai', 'gpt-4.1', { 'openai:gpt-4o': 1 })).toBe(1_047_576);
  });

  it('has a default for every provider and only positive windows', () => {
    for (const defaults of Object.values(PROVIDERS)) expect(defaults.defaultContextWindow).toBeGreaterThan(0);
    for (const window of Object.values(CONTEXT_WINDOWS)) expect(window).toBeGreaterThan(0);
  });
});
