/** One search hit as every provider reports it. */
export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/** A web search API behind one call. */
export interface SearchProvider {
  readonly id: string;
  search(query: string, limit: number, signal: AbortSignal): Promise<readonly SearchHit[]>;
}

/** How to build a provider: its id, the environment variable holding its key, and a factory. */
export interface SearchProviderDefinition {
  readonly id: string;
  readonly keyVariable: string;
  create(options: SearchProviderOptions): SearchProvider;
}

export interface SearchProviderOptions {
  readonly apiKey: string;
  /** The API's URL; tests and proxies point it elsewhere. */
  readonly endpoint?: string;
  readonly timeoutMs?: number;
}

/** A provider's API said no (bad key, quota, outage): the message names the provider and the status. */
export class SearchProviderError extends Error {
  readonly providerId: string;
  readonly status: number | undefined;
  constructor(providerId: string, message: string, status?: number) {
    super(`${providerId}: ${message}`);
    this.name = 'SearchProviderError';
    this.providerId = providerId;
    this.status = status;
  }
}
