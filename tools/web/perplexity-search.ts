import { requestSearchJson } from './search-http.js';
import type { SearchHit, SearchProviderDefinition } from './search-provider.js';

const PERPLEXITY_ENDPOINT = 'https://api.perplexity.ai/search';

/** Perplexity's Search API (`POST /search`, ranked results, not a generated answer); the key in `PERPLEXITY_API_KEY`. */
export const perplexitySearch: SearchProviderDefinition = {
  id: 'perplexity',
  keyVariable: 'PERPLEXITY_API_KEY',
  create(options) {
    return {
      id: 'perplexity',
      async search(query, limit, signal) {
        const body = (await requestSearchJson(
          'perplexity',
          options.endpoint ?? PERPLEXITY_ENDPOINT,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query, max_results: limit }),
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          },
          signal,
        )) as PerplexityResponse;
        return (body.results ?? []).slice(0, limit).map((result): SearchHit => ({ title: result.title ?? '', url: result.url ?? '', snippet: result.snippet ?? '' }));
      },
    };
  },
};

interface PerplexityResponse {
  readonly results?: readonly { readonly title?: string; readonly url?: string; readonly snippet?: string; readonly date?: string | null }[];
}
