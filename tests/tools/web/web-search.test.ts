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
    { name: 'none with a key is an error naming the variables', env: {}, error: 'no web search provider is available: set one of BRAVE_API_KEY, TAVILY_API_KEY, EXA_API_KEY, PERPLEXITY_API_KEY' },
    { name: 'a configured provider without its key', configured: 'brave', env: { TAVILY_API_KEY: 't' }, error: 'web search provider brave is configured but BRAVE_API_KEY is not set' },
    { name: 'an unknown configured id', configured: 'bing', env: { BRAVE_API_KEY: 'b' }, error: 'web search provider "bing" (web.searchProvider) is unknown; known providers: brave, tavily, exa, perplexity' },
    { name: 'Exa alone with a key is used', env: { EXA_API_KEY: 'e' }, expected: 'exa' },
    { name: 'Perplexity is chosen by configuration beside Exa', configured: 'perplexity', env: { EXA_API_KEY: 'e', PERPLEXITY_API_KEY: 'p' }, expected: 'perplexity' },
    { name: 'Exa and Perplexity both with keys is an error', env: { EXA_API_KEY: 'e', PERPLEXITY_API_KEY: 'p' }, error: 'several web search providers have keys: exa (EXA_API_KEY), perplexity (PERPLEXITY_API_KEY); choose one with "web": { "searchProvider": "<id>" } in your dagent config' },
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

  it('posts to Exa with its x-api-key header and shows the text snippet', async () => {
    api.enqueue({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        requestId: 'b5947044c4b78efa9552a7c89b306d95',
        resolvedSearchType: 'neural',
        results: [
          { id: 'https://nodejs.org/api/test.html', title: 'Test runner | Node.js', url: 'https://nodejs.org/api/test.html', publishedDate: '2024-01-01T00:00:00.000Z', author: null, text: 'The node:test module facilitates the creation of JavaScript tests.' },
          { id: 'https://x.example/', title: null, url: 'https://x.example/', highlights: ['first part', 'second part'] },
        ],
        costDollars: { total: 0.005 },
      }),
    });
    const choice = chooseSearchProvider({ env: { EXA_API_KEY: 'exa-key' } });
    const runtime = new LocalToolRuntime({ approval: 'auto', tools: [createWebSearchTool({ choice, endpoint: `${api.url}/search` })] });
    const result = await bed.call(runtime, 'web_search', { query: 'node test runner', limit: 2 });
    expect(result.isError).toBe(false);
    expect(api.requests[0]).toMatchObject({ method: 'POST', path: '/search', headers: { 'x-api-key': 'exa-key' }, json: { query: 'node test runner', numResults: 2, contents: { text: { maxCharacters: 300 } } } });
    expect(result.content).toContain('provider="exa"');
    expect(result.content).toContain('1. Test runner | Node.js\n   https://nodejs.org/api/test.html\n   The node:test module facilitates the creation of JavaScript tests.');
    expect(result.content).toContain('2. (untitled)\n   https://x.example/\n   first part … second part');
    expect(result.meta).toMatchObject({ provider: 'exa', resultCount: 2 });
  });

  it('posts to Perplexity\'s Search API with a bearer key and shows its ranked results', async () => {
    api.enqueue({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'e38104d5-6bd7-4d82-bc4e-0a21179d1f77',
        results: [{ title: 'Vitest | Next Generation testing framework', url: 'https://vitest.dev/', snippet: 'A Vite-native testing framework.', date: '2025-03-20', last_updated: '2025-06-01' }],
      }),
    });
    const choice = chooseSearchProvider({ configured: 'perplexity', env: { PERPLEXITY_API_KEY: 'pplx-key', EXA_API_KEY: 'other' } });
    const runtime = new LocalToolRuntime({ approval: 'auto', tools: [createWebSearchTool({ choice, endpoint: `${api.url}/search` })] });
    const result = await bed.call(runtime, 'web_search', { query: 'vitest', limit: 3 });
    expect(api.requests[0]).toMatchObject({ method: 'POST', path: '/search', headers: { authorization: 'Bearer pplx-key' }, json: { query: 'vitest', max_results: 3 } });
    expect(result.content).toContain('provider="perplexity"');
    expect(result.content).toContain('1. Vitest | Next Generation testing framework\n   https://vitest.dev/\n   A Vite-native testing framework.');
  });

  it('names Perplexity when its API refuses the key', async () => {
    api.enqueue({ status: 401, headers: { 'content-type': 'application/json' }, body: '{"error":{"message":"Invalid API key","type":"invalid_api_key","code":401}}' });
    const choice = chooseSearchProvider({ env: { PERPLEXITY_API_KEY: 'bad' } });
    const runtime = new LocalToolRuntime({ approval: 'auto', tools: [createWebSearchTool({ choice, endpoint: api.url })] });
    const result = await bed.call(runtime, 'web_search', { query: 'q' });
    expect(result.content).toMatch(/^error: web search failed: perplexity: the search API answered HTTP 401: /);
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
