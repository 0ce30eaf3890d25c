import { lookupByModelKey } from './model-key-lookup.js';

/** Which models take images, keyed like the price table (`provider:model` family, see model-key-lookup.ts). */
export type ImageModelTable = Readonly<Record<string, boolean>>;

/**
 * Models known to accept images in user messages, as their vendors document them in late 2026.
 * A model matching no key takes none. The config's `images.models` lays rows over this table
 * (e.g. `{ "vllm:qwen2-vl": true }` for a local vision model, `false` to turn one off).
 */
export const DEFAULT_IMAGE_MODELS: ImageModelTable = {
  'openai:gpt-4o': true,
  'openai:chatgpt-4o': true,
  'openai:gpt-4-turbo': true,
  'openai:gpt-4.1': true,
  'openai:gpt-4.5': true,
  'openai:gpt-5': true,
  'openai:o1': true,
  'openai:o1-mini': false,
  'openai:o3': true,
  'openai:o3-mini': false,
  'openai:o4-mini': true,
  'anthropic:claude': true,
  'kimi:moonshot-v1-8k-vision-preview': true,
  'kimi:moonshot-v1-32k-vision-preview': true,
  'kimi:moonshot-v1-128k-vision-preview': true,
  'kimi:kimi-latest': true,
  'kimi:kimi-k2.5': true,
  'glm:glm-4v': true,
  'glm:glm-4.1v-thinking': true,
  'glm:glm-4.5v': true,
  'glm:glm-4.6v': true,
  'ollama:llava': true,
  'ollama:llama3.2-vision': true,
  'ollama:qwen2.5vl': true,
  'ollama:gemma3': true,
};

/** Whether `provider:model` accepts images: the override table first, then the defaults. */
export function acceptsImages(provider: string, model: string, overrides: ImageModelTable = {}): boolean {
  return lookupByModelKey(overrides, provider, model) ?? lookupByModelKey(DEFAULT_IMAGE_MODELS, provider, model) ?? false;
}
