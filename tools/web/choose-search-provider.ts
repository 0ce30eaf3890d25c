import { braveSearch } from './brave-search.js';
import { exaSearch } from './exa-search.js';
import { perplexitySearch } from './perplexity-search.js';
import type { SearchProviderDefinition } from './search-provider.js';
import { tavilySearch } from './tavily-search.js';

/** The search providers dagent knows, by id. */
export const SEARCH_PROVIDERS: readonly SearchProviderDefinition[] = [braveSearch, tavilySearch, exaSearch, perplexitySearch];

export type SearchProviderChoice =
  | { readonly ok: true; readonly definition: SearchProviderDefinition; readonly apiKey: string }
  | { readonly ok: false; readonly message: string };

export interface SearchProviderChoiceInput {
  /** `web.searchProvider` from the config. */
  readonly configured?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly definitions?: readonly SearchProviderDefinition[];
}

/**
 * SPEC §4's provider rule as a pure function: a configured id wins; with none configured, the one
 * provider whose key is set is used; several with keys is an error naming them, as is none.
 */
export function chooseSearchProvider(input: SearchProviderChoiceInput): SearchProviderChoice {
  const definitions = input.definitions ?? SEARCH_PROVIDERS;
  const keyOf = (definition: SearchProviderDefinition): string | undefined => {
    const key = input.env[definition.keyVariable]?.trim();
    return key === undefined || key === '' ? undefined : key;
  };
  if (input.configured !== undefined) {
    const definition = definitions.find((candidate) => candidate.id === input.configured);
    if (definition === undefined) {
      return { ok: false, message: `web search provider "${input.configured}" (web.searchProvider) is unknown; known providers: ${definitions.map((d) => d.id).join(', ')}` };
    }
    const apiKey = keyOf(definition);
    if (apiKey === undefined) return { ok: false, message: `web search provider ${definition.id} is configured but ${definition.keyVariable} is not set` };
    return { ok: true, definition, apiKey };
  }
  const available = definitions.filter((definition) => keyOf(definition) !== undefined);
  if (available.length === 1) return { ok: true, definition: available[0]!, apiKey: keyOf(available[0]!)! };
  if (available.length === 0) {
    return { ok: false, message: `no web search provider is available: set one of ${definitions.map((d) => d.keyVariable).join(', ')}` };
  }
  const named = available.map((definition) => `${definition.id} (${definition.keyVariable})`).join(', ');
  return { ok: false, message: `several web search providers have keys: ${named}; choose one with "web": { "searchProvider": "<id>" } in your dagent config` };
}
