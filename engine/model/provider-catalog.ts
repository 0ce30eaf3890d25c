/**
 * The providers dagent can talk to, with the defaults a user would otherwise have to look up:
 * wire protocol, base URL, the environment variable holding the API key, and the context window
 * assumed for a model the window table does not know.
 */

export const PROVIDER_NAMES = ['deepseek', 'openai', 'anthropic', 'ollama', 'vllm', 'llamacpp', 'kimi', 'glm', 'scripted'] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];

export type ProviderProtocol = 'openai-compatible' | 'anthropic' | 'scripted';

export interface ProviderDefaults {
  readonly name: ProviderName;
  readonly protocol: ProviderProtocol;
  /**
   * OpenAI-compatible: up to and including the API version (`/chat/completions` is appended).
   * Anthropic: the host only (`/v1/messages` is appended), as the vendors' own clients do.
   */
  readonly baseUrl: string;
  /** Where the API key comes from; local servers need none. */
  readonly apiKeyEnv?: string;
  /** Window for models missing from the table in context-window.ts. */
  readonly defaultContextWindow: number;
  /**
   * Thinking models of this provider need their `reasoning_content` sent back on assistant turns
   * that made tool calls (DeepSeek answers 400 otherwise; Kimi's thinking models likewise).
   */
  readonly reasoningRoundTrip: boolean;
  /** OpenAI's newer models refuse `max_tokens`; everyone else expects it. */
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

const LOCAL_CONTEXT_WINDOW_TOKENS = 32_768;

export const PROVIDERS: Readonly<Record<ProviderName, ProviderDefaults>> = {
  deepseek: {
    name: 'deepseek', protocol: 'openai-compatible', baseUrl: 'https://api.deepseek.com/v1', apiKeyEnv: 'DEEPSEEK_API_KEY',
    defaultContextWindow: 131_072, reasoningRoundTrip: true, maxTokensField: 'max_tokens',
  },
  openai: {
    name: 'openai', protocol: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY',
    defaultContextWindow: 128_000, reasoningRoundTrip: false, maxTokensField: 'max_completion_tokens',
  },
  anthropic: {
    name: 'anthropic', protocol: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY',
    defaultContextWindow: 200_000, reasoningRoundTrip: true, maxTokensField: 'max_tokens',
  },
  ollama: {
    name: 'ollama', protocol: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1',
    defaultContextWindow: LOCAL_CONTEXT_WINDOW_TOKENS, reasoningRoundTrip: false, maxTokensField: 'max_tokens',
  },
  vllm: {
    name: 'vllm', protocol: 'openai-compatible', baseUrl: 'http://127.0.0.1:8000/v1',
    defaultContextWindow: LOCAL_CONTEXT_WINDOW_TOKENS, reasoningRoundTrip: false, maxTokensField: 'max_tokens',
  },
  llamacpp: {
    name: 'llamacpp', protocol: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1',
    defaultContextWindow: LOCAL_CONTEXT_WINDOW_TOKENS, reasoningRoundTrip: false, maxTokensField: 'max_tokens',
  },
  kimi: {
    name: 'kimi', protocol: 'openai-compatible', baseUrl: 'https://api.moonshot.ai/v1', apiKeyEnv: 'MOONSHOT_API_KEY',
    defaultContextWindow: 131_072, reasoningRoundTrip: true, maxTokensField: 'max_tokens',
  },
  glm: {
    name: 'glm', protocol: 'openai-compatible', baseUrl: 'https://open.bigmodel.cn/api/paas/v4', apiKeyEnv: 'ZHIPUAI_API_KEY',
    defaultContextWindow: 131_072, reasoningRoundTrip: false, maxTokensField: 'max_tokens',
  },
  scripted: {
    name: 'scripted', protocol: 'scripted', baseUrl: '',
    defaultContextWindow: 200_000, reasoningRoundTrip: false, maxTokensField: 'max_tokens',
  },
};

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}
