/** tools/web: web_fetch behind the SSRF guard, and web_search through a provider layer. */
export { createWebFetchTool, DEFAULT_WEB_MAX_BYTES, DEFAULT_WEB_TOTAL_TIMEOUT_MS, DEFAULT_WEB_HEADERS_TIMEOUT_MS, MAX_WEB_CONTENT_CHARS, type WebFetchOptions } from './web-fetch.js';
export { guardedFetch, MAX_REDIRECTS, type FetchedPage, type GuardedFetchOptions } from './guarded-fetch.js';
export { blockedAddressReason, isIpLiteral, pinnedLookup, systemHostResolver, type HostResolver } from '../address-guard/index.js';
export { checkWebUrl } from './check-web-url.js';
export { hostRuleViolation, type HostRules } from './host-rules.js';
export { connectPinned, type Connect, type ConnectTarget, type ConnectTimeouts } from './connect-target.js';
export { htmlToMarkdown } from './html-to-markdown.js';
export { wrapExternalContent } from '../../engine/index.js';
export { createWebSearchTool, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type WebSearchOptions } from './web-search.js';
export { chooseSearchProvider, SEARCH_PROVIDERS, type SearchProviderChoice, type SearchProviderChoiceInput } from './choose-search-provider.js';
export { braveSearch } from './brave-search.js';
export { tavilySearch } from './tavily-search.js';
export { exaSearch } from './exa-search.js';
export { perplexitySearch } from './perplexity-search.js';
export { SearchProviderError, type SearchHit, type SearchProvider, type SearchProviderDefinition, type SearchProviderOptions } from './search-provider.js';
