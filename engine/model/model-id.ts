import { InvalidModelIdError } from './model-errors.js';
import { PROVIDER_NAMES, isProviderName, type ProviderName } from './provider-catalog.js';

/** A parsed `provider:model` id, e.g. `deepseek:deepseek-chat` or `scripted:examples/demo.json`. */
export interface ModelId {
  readonly provider: ProviderName;
  /** Everything after the first colon: Ollama tags (`qwen2.5-coder:7b`) and file paths keep theirs. */
  readonly model: string;
  /** The canonical `provider:model` text. */
  readonly id: string;
}

/** Parses a model id; throws `InvalidModelIdError` (one clear line) when it is malformed or the provider unknown. */
export function parseModelId(text: string): ModelId {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  if (colon < 0) {
    throw new InvalidModelIdError(text, 'expected provider:model, e.g. deepseek:deepseek-chat or anthropic:claude-sonnet-4-5');
  }
  const provider = trimmed.slice(0, colon).toLowerCase();
  const model = trimmed.slice(colon + 1).trim();
  if (!isProviderName(provider)) {
    throw new InvalidModelIdError(text, `unknown provider "${provider}" (known: ${PROVIDER_NAMES.join(', ')})`);
  }
  if (model.length === 0) {
    throw new InvalidModelIdError(text, `missing the model name after "${provider}:"`);
  }
  return { provider, model, id: `${provider}:${model}` };
}
