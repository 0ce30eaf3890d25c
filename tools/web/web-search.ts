import { z } from 'zod';
import { defineTool, loadToolDescription, type Tool } from '../define-tool.js';
import { ToolError } from '../tool-errors/index.js';
import type { SearchProviderChoice } from './choose-search-provider.js';
import { wrapExternalContent } from '../../engine/index.js';
import { SearchProviderError } from './search-provider.js';

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;

export interface WebSearchOptions {
  /** The provider chosen by `chooseSearchProvider`; a failed choice is the error every call returns. */
  readonly choice: SearchProviderChoice;
  readonly endpoint?: string;
  readonly timeoutMs?: number;
}

const webSearchArgs = z.strictObject({
  query: z.string().min(1).max(400).describe('what to search the web for'),
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe(`how many results (default ${DEFAULT_SEARCH_LIMIT})`),
});

/** `web_search`: titles, URLs and snippets from the chosen search provider, marked as untrusted external content. */
export function createWebSearchTool(options: WebSearchOptions): Tool<z.output<typeof webSearchArgs>> {
  const choice = options.choice;
  const provider = choice.ok
    ? choice.definition.create({ apiKey: choice.apiKey, ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) })
    : undefined;
  return defineTool({
    name: 'web_search',
    description: loadToolDescription(import.meta.url, 'web-search.md'),
    args: webSearchArgs,
    risk: 'network',
    summarize: (args) => `web_search ${JSON.stringify(args.query)}`,
    async execute(args, context) {
      if (provider === undefined) throw new ToolError(choice.ok ? 'no search provider' : choice.message);
      const limit = args.limit ?? DEFAULT_SEARCH_LIMIT;
      let hits;
      try {
        hits = await provider.search(args.query, limit, context.signal);
      } catch (error) {
        if (error instanceof SearchProviderError) throw new ToolError(`web search failed: ${error.message}`);
        throw error;
      }
      const lines = hits.length === 0 ? ['(no results)'] : hits.map((hit, index) => `${index + 1}. ${hit.title || '(untitled)'}\n   ${hit.url}${hit.snippet ? `\n   ${hit.snippet.replace(/\s+/g, ' ').trim()}` : ''}`);
      const content = wrapExternalContent(`Results for: ${args.query}\n\n${lines.join('\n')}`, { source: 'web_search', provider: provider.id, query: args.query });
      return { content, meta: { provider: provider.id, query: args.query, resultCount: hits.length, urls: hits.map((hit) => hit.url), contentType: 'text/markdown' } };
    },
  });
}
