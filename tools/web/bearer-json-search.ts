import { requestSearchJson } from './search-http.js';
import type { SearchHit, SearchProviderDefinition } from './search-provider.js';

/** A search API of one shape: `POST {query, max_results}` with a bearer key, answered by `results[]` of title, url and a snippet. */
export interface BearerJsonSearchSpec {
  readonly id: string;
  readonly keyVariable: string;
  readonly endpoint: string;
  /** The field of a result that holds its snippet (`content` for Tavily, `snippet` for Perplexity). */
  readonly snippetField: string;
}

type BearerJsonResult = Readonly<Record<string, unknown>> & { readonly title?: string; readonly url?: string };

/** The provider definition of a search API of that shape. */
export function bearerJsonSearch(spec: BearerJsonSearchSpec): SearchProviderDefinition {
  return {
    id: spec.id,
    keyVariable: spec.keyVariable,
    create(options) {
      return {
        id: spec.id,
        async search(query, limit, signal) {
          const body = (await requestSearchJson(
            spec.id,
            options.endpoint ?? spec.endpoint,
            {
              method: 'POST',
              headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({ query, max_results: limit }),
              ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
            },
            signal,
          )) as { readonly results?: readonly BearerJsonResult[] };
          return (body.results ?? []).slice(0, limit).map((result): SearchHit => {
            const snippet = result[spec.snippetField];
            return { title: result.title ?? '', url: result.url ?? '', snippet: typeof snippet === 'string' ? snippet : '' };
          });
        },
      };
    },
  };
}
