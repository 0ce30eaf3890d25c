import { SearchProviderError } from './search-provider.js';

/** Responses of a search API larger than this are refused (a page of results is a few KB). */
export const MAX_SEARCH_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_SEARCH_TIMEOUT_MS = 15_000;

/** One JSON request to a search API, under a time limit and a size cap; errors name the provider. */
export async function requestSearchJson(
  providerId: string,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; timeoutMs?: number },
  signal: AbortSignal,
): Promise<unknown> {
  const combined = AbortSignal.any([signal, AbortSignal.timeout(init.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS)]);
  let response: Response;
  try {
    response = await fetch(url, { method: init.method, headers: { accept: 'application/json', ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }), signal: combined, redirect: 'error' });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new SearchProviderError(providerId, combined.aborted ? 'the search API did not answer in time' : `the search API could not be reached (${(error as Error).message})`);
  }
  const text = await readCapped(response, providerId);
  if (!response.ok) throw new SearchProviderError(providerId, `the search API answered HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, response.status);
  try {
    return JSON.parse(text);
  } catch {
    throw new SearchProviderError(providerId, 'the search API answered with something other than JSON');
  }
}

async function readCapped(response: Response, providerId: string): Promise<string> {
  if (response.body === null) return '';
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > MAX_SEARCH_RESPONSE_BYTES) throw new SearchProviderError(providerId, `the search API answered with more than ${MAX_SEARCH_RESPONSE_BYTES} bytes`);
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts).toString('utf8');
}
