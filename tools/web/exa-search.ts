import { requestSearchJson } from './search-http.js';
import type { SearchHit, SearchProviderDefinition } from './search-provider.js';

const EXA_ENDPOINT = 'https://api.exa.ai/search';
/** Characters of page text asked for per hit: a snippet, not the page (web_fetch reads pages). */
const EXA_SNIPPET_CHARS = 300;

/** Exa's search API (`POST /search`, key in the `x-api-key` header); the key in `EXA_API_KEY`. */
export const exaSearch: SearchProviderDefinition = {
  id: 'exa',
  keyVariable: 'EXA_API_KEY',
  create(options) {
    return {
      id: 'exa',
      async search(query, limit, signal) {
        const body = (await requestSearchJson(
          'exa',
          options.endpoint ?? EXA_ENDPOINT,
          {
            method: 'POST',
            headers: { 'x-api-key': options.apiKey, 'content-type': 'application/json' },
            body: JSON.stringify({ query, numResults: limit, contents: { text: { maxCharacters: EXA_SNIPPET_CHARS } } }),
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          },
          signal,
        )) as ExaResponse;
        return (body.results ?? []).slice(0, limit).map((result): SearchHit => ({ title: result.title ?? '', url: result.url ?? '', snippet: snippetOf(result) }));
      },
    };
  },
};

interface ExaResult {
  readonly title?: string | null;
  readonly url?: string;
  readonly text?: string;
  readonly highlights?: readonly string[];
}

interface ExaResponse {
  readonly results?: readonly ExaResult[];
}

function snippetOf(result: ExaResult): string {
  if (result.highlights !== undefined && result.highlights.length > 0) return result.highlights.join(' … ');
  return (result.text ?? '').slice(0, EXA_SNIPPET_CHARS);
}
