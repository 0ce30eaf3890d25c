import { bearerJsonSearch } from './bearer-json-search.js';

/** Tavily's search API; the key in `TAVILY_API_KEY`. */
export const tavilySearch = bearerJsonSearch({ id: 'tavily', keyVariable: 'TAVILY_API_KEY', endpoint: 'https://api.tavily.com/search', snippetField: 'content' });
