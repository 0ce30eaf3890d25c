import { requestSearchJson } from './search-http.js';
import type { SearchHit, SearchProviderDefinition } from './search-provider.js';

const TAVILY_ENDPOINT = 'https://api.tavily.com/search';

/** Tavily's search API; the key in `TAVILY_API_KEY`. */
export const tavilySearch: SearchProviderDefinition = {
  id: 'tavily',
  keyVariable: 'TAVILY_API_KEY',
  create(options) {
    return {
      id: 'tavily',
      async search(query, limit, signal) {
        const body = (await requestSearchJson(
          'tavily',
          options.endpoint ?? TAVILY_ENDPOINT,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query, max_results: limit }),
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          },
          signal,
        )) as TavilyResponse;
        return (body.results ?? []).slice(0, limit).map((result): SearchHit => ({ title: result.title ?? '', url: result.url ?? '', snippet: result.content ?? '' }));
      },
    };
  },
};

interface TavilyResponse {
  readonly results?: readonly { readonly title?: string; readonly url?: string; readonly content?: string }[];
}
