import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalToolRuntime, blockedAddressReason, createWebFetchTool } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';
import { SITE_ADDRESS, createRecordingConnect, createTestResolver, startRoutedServer, type RoutedServer } from './web-test-net.js';

interface Corpus {
  readonly blocked: Readonly<Record<string, readonly string[]>>;
  readonly redirectTargets: readonly string[];
}

const corpus = JSON.parse(readFileSync(new URL('../../fixtures/web/ssrf-corpus.json', import.meta.url), 'utf8')) as Corpus;
const blockedCases = Object.entries(corpus.blocked).flatMap(([category, urls]) => urls.map((url) => ({ category, url })));

let bed: ToolTestBed;
let server: RoutedServer;
let connect: ReturnType<typeof createRecordingConnect>;
let resolver: ReturnType<typeof createTestResolver>;
let runtime: LocalToolRuntime;

beforeAll(async () => {
  bed = await openToolTestBed();
  server = await startRoutedServer();
  server.route('/', (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Site</title></head><body><h1>Hello</h1><p>A <a href="/x">link</a>.</p><script>steal()</script></body></html>'));
});
afterAll(async () => {
  await server.close();
  await bed.cleanup();
});
beforeEach(() => {
  connect = createRecordingConnect(() => server.port);
  resolver = createTestResolver();
  // Redirects to other hosts are allowed here, so every redirect target meets the per-hop check.
  runtime = new LocalToolRuntime({ approval: 'auto', tools: [createWebFetchTool({ resolver, connect, deniedHosts: ['denied.test', '*.denied.test'], crossHostRedirects: true })] });
});

describe('web_fetch SSRF corpus', () => {
  it('holds at least 150 blocked URLs and redirect targets in every form', () => {
    expect(blockedCases.length + corpus.redirectTargets.length).toBeGreaterThanOrEqual(150);
  });

  it.each(blockedCases)('refuses $url ($category) without connecting anywhere', async ({ url }) => {
    const result = await bed.call(runtime, 'web_fetch', { url });
    expect(result.meta.outcome).toBe('refused');
    expect(result.content).toMatch(/^refused: /);
    expect(connect.attempts).toEqual([]);
    expect(server.paths).toEqual([]);
  });

  it.each(corpus.redirectTargets)('follows a redirect to %s only as far as the check, and connects only to the vetted site', async (target) => {
    server.route('/hop', (_request, response) => response.writeHead(302, { location: target }).end());
    const before = server.paths.length;
    const result = await bed.call(runtime, 'web_fetch', { url: 'http://site.test/hop' });
    expect(result.meta.outcome).toBe('refused');
    expect(connect.attempts).toEqual([{ protocol: 'http:', hostname: 'site.test', port: 80, address: SITE_ADDRESS }]);
    expect(server.paths.slice(before)).toEqual(['/hop']);
  });
});

describe('web_fetch through the guard', () => {
  it('fetches a public page as Markdown, wrapped as untrusted content, connecting only to the vetted address', async () => {
    const result = await bed.call(runtime, 'web_fetch', { url: 'http://site.test/' });
    expect(result.isError).toBe(false);
    expect(result.content).toContain('<external-content source="web_fetch" url="http://site.test/" trust="untrusted">');
    expect(result.content).toContain('# Hello');
    expect(result.content).toContain('A [link](/x).');
    expect(result.content).toContain('Title: Site');
    expect(result.content).not.toContain('steal()');
    expect(result.meta).toMatchObject({ url: 'http://site.test/', contentType: 'text/html', status: 200, truncated: false, args: { url: 'http://site.test/' } });
    expect(connect.attempts).toEqual([{ protocol: 'http:', hostname: 'site.test', port: 80, address: SITE_ADDRESS }]);
  });

  it('resolves a name once per hop, so a rebinding resolver cannot move the connection to loopback', async () => {
    const result = await bed.call(runtime, 'web_fetch', { url: 'http://rebind.test/' });
    expect(result.isError).toBe(false);
    expect(resolver.lookups).toEqual(['rebind.test']);
    expect(connect.attempts.map((attempt) => attempt.address)).toEqual([SITE_ADDRESS]);
  });

  it('re-checks each hop of a redirect chain and records one connection per hop, every one to a vetted address', async () => {
    server.route('/a', (_request, response) => response.writeHead(301, { location: 'http://other.test/b' }).end());
    server.route('/b', (_request, response) => response.writeHead(307, { location: '/' }).end());
    const result = await bed.call(runtime, 'web_fetch', { url: 'http://site.test/a' });
    expect(result.isError).toBe(false);
    expect(result.meta).toMatchObject({ url: 'http://other.test/', redirects: ['http://other.test/b', 'http://other.test/'] });
    expect(connect.attempts.map((attempt) => `${attempt.hostname}→${attempt.address}`)).toEqual([
      `site.test→${SITE_ADDRESS}`,
      'other.test→2606:2800:220:1:248:1893:25c8:1946',
      'other.test→2606:2800:220:1:248:1893:25c8:1946',
    ]);
    for (const attempt of connect.attempts) expect(blockedAddressReason(attempt.address)).toBeUndefined();
  });

  it('follows redirects only within the same host by default, refusing another host without connecting to it', async () => {
    const sameHostOnly = new LocalToolRuntime({ approval: 'auto', tools: [createWebFetchTool({ resolver, connect })] });
    server.route('/moved', (_request, response) => response.writeHead(301, { location: '/' }).end());
    const within = await bed.call(sameHostOnly, 'web_fetch', { url: 'http://site.test/moved' });
    expect(within.isError).toBe(false);
    expect(within.meta).toMatchObject({ url: 'http://site.test/', redirects: ['http://site.test/'] });

    server.route('/away', (_request, response) => response.writeHead(302, { location: 'http://other.test/' }).end());
    const before = connect.attempts.length;
    const away = await bed.call(sameHostOnly, 'web_fetch', { url: 'http://site.test/away' });
    expect(away.meta.outcome).toBe('refused');
    expect(away.content).toBe(
      'refused: http://site.test/away redirected to another host (http://other.test/); web_fetch follows redirects only within the same host (set web.crossHostRedirects: true to allow other hosts)',
    );
    expect(connect.attempts.slice(before).map((attempt) => attempt.hostname)).toEqual(['site.test']);
  });

  it('stops after 5 redirects', async () => {
    server.route('/loop', (_request, response) => response.writeHead(302, { location: '/loop' }).end());
    const result = await bed.call(runtime, 'web_fetch', { url: 'http://site.test/loop' });
    expect(result.content).toMatch(/^error: too many redirects \(more than 5\)/);
    expect(connect.attempts).toHaveLength(6);
  });

  it('asks before fetching under suggest, like every network tool', async () => {
    const asking = new LocalToolRuntime({ tools: [createWebFetchTool({ resolver, connect })] });
    const result = await bed.call(asking, 'web_fetch', { url: 'http://site.test/' }, { approver: { interactive: false, ask: async () => ({ decision: 'no' }) } });
    expect(result.meta.outcome).toBe('denied');
    expect(connect.attempts).toEqual([]);
  });

  it('fetches only allowed hosts when an allow-list is set', async () => {
    const allowing = new LocalToolRuntime({ approval: 'auto', tools: [createWebFetchTool({ resolver, connect, allowedHosts: ['other.test'] })] });
    const refused = await bed.call(allowing, 'web_fetch', { url: 'http://site.test/' });
    expect(refused.content).toContain('site.test is not in the allowed hosts (web.allowedHosts: other.test)');
    const allowed = await bed.call(allowing, 'web_fetch', { url: 'http://other.test/' });
    expect(allowed.isError).toBe(false);
  });
});
