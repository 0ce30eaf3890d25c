import { bearerJsonSearch } from './bearer-json-search.js';

/** Perplexity's Search API (`POST /search`, ranked results, not a generated answer); the key in `PERPLEXITY_API_KEY`. */
export const perplexitySearch = bearerJsonSearch({ id: 'perplexity', keyVariable: 'PERPLEXITY_API_KEY', endpoint: 'https://api.perplexity.ai/search', snippetField: 'snippet' });
