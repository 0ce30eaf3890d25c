import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalToolRuntime, chooseSearchProvider, createWebSearchTool } from '../../../tools/index.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';

describe('choosing the web search provider', () => {
  const cases = [
    { name: 'a configured id wins over other keys', configured: 'tavily', env: { BRAVE_API_KEY: 'b', TAVILY_API_KEY: 't' }, expected: 'tavily' },
    { name: 'the one provider with a key is used', env: { TAVILY_API_KEY: 't' }, expected: 'tavily' },
    { name: 'an empty key does not count', env: { BRAVE_API_KEY: 'b', TAVILY_API_KEY: ' ' }, expected: 'brave' },
    { name: 'several with keys is an error naming them', env: { BRAVE_API_KEY: 'b', TAVILY_API_KEY: 't' }, error: 'several web search providers have keys: brave (BRAVE_API_KEY), tavily (TAVILY_API_KEY); choose one with "web": { "searchProvider": "<id>" } in your dagent config' },
    { name: 'none with a key is an error naming the variables', env: {}, error: 'no web search provider is available: set one of BRAVE_API_KEY, TAVILY_API_KEY' },
    { name: 'a configured provider without its key', configured: 'brave', env: { TAVILY_API_KEY: 't' }, error: 'web search provider brave is configured but BRAVE_API_KEY is not set' },
    { name: 'an unknown configured id', configured: 'bing', env: { BRAVE_API_KEY: 'b' }, error: 'web search provider "bing" (web.searchProvider) is unknown; known providers: brave, tavily' },
  ];
  it.each(cases)('$name', ({ configured, env, expected, error }) => {
    const choice = chooseSearchProvider({ ...(configured === undefined ? {} : { configured }), env });
    if (expected !== undefined) expect(choice).toMatchObject({ ok: true, definition: { id: expected } });
    else expect(choice).toEqual({ ok: false, message: error });
  });
});

describe('web_search against a loopback mock of the provider API', () => {
  let bed: ToolTestBed;
  let api: LoopbackServer;
  beforeEach(async () => {
    bed = await openToolTestBed();
    api = await startLoopbackServer();
  });
  afterEach(async () => {
    await api.close();
    await bed.cleanup();
  });

  it('asks Brave with the key and shows titles, URLs and snippets as untrusted content', async () => {
    api.enqueue({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ web: { results: [{ title: 'Undici docs', url: 'https://undici.nodejs.org/', description: 'An <strong>HTTP</strong> client' }, { title: 'Second', url: 'https://example.org/2', description: 'more' }] } }),
    });
    const choice = chooseSearchProvider({ env: { BRAVE_API_KEY: 'secret-key' } });
    const runtime = new LocalToolRuntime({ approval: 'auto', tools: [createWebSearchTool({ choice, endpoint: `${api.url}/res/v1/web/search` })] });
    const result = await bed.call(runtime, 'web_search', { query: 'undici agent lookup', limit: 2 });
    expect(result.isError).toBe(false);
    expect(api.requests[0]).toMatchObject({ method: 'GET', path: '/res/v1/web/search?q=undici+agent+lookup&count=2', headers: { 'x-subscription-token': 'secret-key' } });
    expect(result.content).toContain('<external-content source="web_search" provider="brave" query="undici agent lookup" trust="untrusted">');
    expect(result.content).toContain('1. Undici docs\n   https://undici.nodejs.org/\n   An HTTP client');
    expect(result.meta).toMatchObject({ provider: 'brave', query: 'undici agent lookup', resultCount: 2, urls: ['https://undici.nodejs.org/', 'https://example.org/2'] });
  });

  it('posts to Tavily with a bearer key', async () => {
    api.enqueue({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ results: [{ title: 'T', url: 'https://t.example/', content: 'snippet' }] }) });
    const choice = chooseSearchProvider({ env: { TAVILY_API_KEY: 'tv-key' } });
    const runtime = new LocalToolRuntime({ approval: 'auto', tools: [createWebSearchTool({ choice, endpoint: `${api.url}/search` })] });
    const result = await bed.call(runtime, 'web_search', { query: 'q' });
    expect(api.requests[0]).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer tv-key' }, json: { query: 'q', max_results: 5 } });
    expect(result.content).toContain('1. T\n   https://t.example/\n   snippet');
  });

  it('turns a rejected key into an error the model can read', async () => {
    api.enqueue({ status: 401, headers: { 'content-type': 'application/json' }, body: '{"error":"invalid token"}' });
    const choice = chooseSearchProvider({ env: { BRAVE_API_KEY: 'bad' } });
    const runtime = new LocalToolRuntime({ approval: 'auto', tools: [createWebSearchTool({ choice, endpoint: api.url })] });
    const result = await bed.call(runtime, 'web_search', { query: 'q' });
    expect(result.content).toBe('error: web search failed: brave: the search API answered HTTP 401: {"error":"invalid token"}');
  });

  it('returns the provider choice error when no provider can be used', async () => {
    const choice = chooseSearchProvider({ env: { BRAVE_API_KEY: 'b', TAVILY_API_KEY: 't' } });
    const runtime = new LocalToolRuntime({ approval: 'auto', tools: [createWebSearchTool({ choice })] });
    const result = await bed.call(runtime, 'web_search', { query: 'q' });
    expect(result.content).toMatch(/^error: several web search providers have keys: brave \(BRAVE_API_KEY\), tavily \(TAVILY_API_KEY\)/);
    expect(api.requests).toEqual([]);
  });
});
