import { requestSearchJson } from './search-http.js';
import type { SearchHit, SearchProviderDefinition } from './search-provider.js';

const BRAVE_ENDPOINT = 'https://api.search.brave.com/res/v1/web/search';

/** Brave Search's web search API; the key in `BRAVE_API_KEY`. */
export const braveSearch: SearchProviderDefinition = {
  id: 'brave',
  keyVariable: 'BRAVE_API_KEY',
  create(options) {
    return {
      id: 'brave',
      async search(query, limit, signal) {
        const url = new URL(options.endpoint ?? BRAVE_ENDPOINT);
        url.searchParams.set('q', query);
        url.searchParams.set('count', String(limit));
        const body = (await requestSearchJson('brave', url.href, { method: 'GET', headers: { 'x-subscription-token': options.apiKey }, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }, signal)) as BraveResponse;
        return (body.web?.results ?? []).slice(0, limit).map((result): SearchHit => ({ title: result.title ?? '', url: result.url ?? '', snippet: stripTags(result.description ?? '') }));
      },
    };
  },
};

interface BraveResponse {
  readonly web?: { readonly results?: readonly { readonly title?: string; readonly url?: string; readonly description?: string }[] };
}

function stripTags(text: string): string {
  return text.replace(/<\/?strong>/g, '');
}
