import { createAnthropicProvider } from './anthropic-provider.js';
import { contextWindowOf, type ContextWindowOverrides } from './context-window.js';
import type { FetchFunction } from './event-stream.js';
import { acceptsImages, type ImageModelTable } from './image-capability.js';
import { MissingApiKeyError } from './model-errors.js';
import { parseModelId, type ModelId } from './model-id.js';
import { lookupByModelKey } from './model-key-lookup.js';
import type { ModelProvider } from './model-provider.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';
import { PROVIDERS } from './provider-catalog.js';
import { createScriptedProvider } from './scripted-provider.js';

export interface CreateProviderOptions {
  /** Another server speaking the provider's protocol (`--base-url`). */
  readonly baseUrl?: string;
  /** Overrides the key from the environment. */
  readonly apiKey?: string;
  /** Where keys are looked up; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly contextWindows?: ContextWindowOverrides;
  /** Rows over the table of models that take images (config `images.models`). */
  readonly imageModels?: ImageModelTable;
  /** Reads a `scripted:FILE` script; defaults to the file system. */
  readonly readFile?: (path: string) => string;
  readonly idleTimeoutMs?: number;
  readonly fetch?: FetchFunction;
}

/** A provider bound to the model the user chose: what the CLI hands to the engine. */
export interface ConfiguredProvider extends ModelProvider {
  readonly modelId: ModelId;
  /** The model name to put in requests (`deepseek-chat`, or the script file for `scripted:`). */
  readonly model: string;
}

/**
 * Builds the provider for a `provider:model` id. A hosted provider on its default URL needs its
 * key (`DEEPSEEK_API_KEY`, `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `MOONSHOT_API_KEY`,
 * `ZHIPUAI_API_KEY`): without it this fails with one line naming the variable. With a custom
 * base URL (a proxy, a gateway, a local server) the key is sent when present and not required.
 */
export function createProvider(modelId: string | ModelId, options: CreateProviderOptions = {}): ConfiguredProvider {
  const parsed = typeof modelId === 'string' ? parseModelId(modelId) : modelId;
  const defaults = PROVIDERS[parsed.provider];
  const bind = (provider: ModelProvider): ConfiguredProvider => ({
    id: provider.id,
    stream: (request, signal) => provider.stream(request, signal),
    contextWindow: (model) => provider.contextWindow(model),
    acceptsImages: (model) => provider.acceptsImages?.(model) ?? false,
    modelId: parsed,
    model: parsed.model,
  });

  if (defaults.protocol === 'scripted') {
    const scripted = createScriptedProvider({ file: parsed.model, ...(options.readFile === undefined ? {} : { readFile: options.readFile }) });
    const override = lookupByModelKey(options.contextWindows ?? {}, parsed.provider, parsed.model);
    return bind(override === undefined ? scripted : { ...scripted, contextWindow: () => override });
  }

  const baseUrl = options.baseUrl ?? defaults.baseUrl;
  const env = options.env ?? process.env;
  const envKey = defaults.apiKeyEnv === undefined ? undefined : env[defaults.apiKeyEnv]?.trim();
  const apiKey = options.apiKey?.trim() || envKey || undefined;
  if (apiKey === undefined && defaults.apiKeyEnv !== undefined && options.baseUrl === undefined) {
    throw new MissingApiKeyError(parsed.provider, defaults.apiKeyEnv);
  }
  const common = {
    baseUrl,
    contextWindow: (model: string) => contextWindowOf(parsed.provider, model, options.contextWindows),
    acceptsImages: (model: string) => acceptsImages(parsed.provider, model, options.imageModels),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(defaults.apiKeyEnv === undefined ? {} : { apiKeyEnv: defaults.apiKeyEnv }),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  if (defaults.protocol === 'anthropic') return bind(createAnthropicProvider({ id: parsed.provider, ...common }));
  return bind(
    createOpenAICompatibleProvider({
      id: parsed.provider,
      reasoningRoundTrip: defaults.reasoningRoundTrip,
      maxTokensField: defaults.maxTokensField,
      ...common,
    }),
  );
}
