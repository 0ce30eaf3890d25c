import { lookupByModelKey } from './model-key-lookup.js';
import { PROVIDERS, type ProviderName } from './provider-catalog.js';

/**
 * Context windows in tokens, keyed by `provider:model` family. DeepSeek's legacy names are kept at
 * their 128K V3.x window (conservative: compaction starts earlier); the V4 names have 1M.
 * Local servers use whatever the server was started with: set it in config.
 */
export const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  'deepseek:deepseek-chat': 131_072,
  'deepseek:deepseek-reasoner': 131_072,
  'deepseek:deepseek-flash': 1_000_000,
  'deepseek:deepseek-v4-flash': 1_000_000,
  'deepseek:deepseek-v4-pro': 1_000_000,
  'openai:gpt-4.1': 1_047_576,
  'openai:gpt-4.1-mini': 1_047_576,
  'openai:gpt-4.1-nano': 1_047_576,
  'openai:gpt-4o': 128_000,
  'openai:gpt-4o-mini': 128_000,
  'openai:gpt-5': 400_000,
  'openai:o3': 200_000,
  'openai:o4-mini': 200_000,
  'anthropic:claude-sonnet-4-5': 200_000,
  'anthropic:claude-sonnet-4': 200_000,
  'anthropic:claude-haiku-4-5': 200_000,
  'anthropic:claude-opus-4-5': 200_000,
  'anthropic:claude-opus-4-1': 200_000,
  'anthropic:claude-opus-4': 200_000,
  'kimi:kimi-k2': 131_072,
  'kimi:kimi-k2-0905': 262_144,
  'kimi:kimi-k2-thinking': 262_144,
  'glm:glm-4.5': 131_072,
  'glm:glm-4.6': 200_000,
  'ollama:qwen2.5-coder': 32_768,
};

/** Config overrides, keyed like CONTEXT_WINDOWS (`provider:model`) or by the bare model name. */
export type ContextWindowOverrides = Readonly<Record<string, number>>;

/** The window of a model: a config override, else the table, else the provider's default. */
export function contextWindowOf(provider: ProviderName, model: string, overrides: ContextWindowOverrides = {}): number {
  return (
    lookupByModelKey(overrides, provider, model) ??
    lookupByModelKey(CONTEXT_WINDOWS, provider, model) ??
    PROVIDERS[provider].defaultContextWindow
  );
}
