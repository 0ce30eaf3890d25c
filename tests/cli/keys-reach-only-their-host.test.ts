import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { startLoopbackServer, type LoopbackServer, type RecordedRequest } from '../helpers/loopback-server.js';
import { tempDir } from '../helpers/temp-store.js';
import { deepSeekChunk, deepSeekUsage, openAISse } from '../engine/model/wire-samples.js';

/**
 * Which host receives a key, through the built binary, with loopback servers only: a provider's
 * key goes to the base URL the user configured, and to nothing else. Not the other provider's key,
 * not a base URL a repository's own config names (until `dagent trust`), not a page the model asks
 * web_fetch for, not an MCP server.
 */

vi.setConfig({ testTimeout: 90_000 });

const DEEPSEEK_KEY = 'dsk-host-check-0123456789abcdef';
const OPENAI_KEY = 'sk-host-check-OTHER-PROVIDER-0123456789';

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;
const servers: LoopbackServer[] = [];

beforeEach(() => {
  temp = tempDir('dagent-key-hosts-');
  workspace = join(temp.dir, 'workspace');
  home = join(temp.dir, 'home');
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  mkdirSync(join(home, '.config', 'dagent'), { recursive: true });
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  temp.cleanup();
});

async function server(): Promise<LoopbackServer> {
  const started = await startLoopbackServer();
  servers.push(started);
  return started;
}

function dagent(args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', DEEPSEEK_API_KEY: DEEPSEEK_KEY, OPENAI_API_KEY: OPENAI_KEY };
    const child = spawn(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Everything a server saw: headers and bodies of every request. */
function everything(requests: readonly RecordedRequest[]): string {
  return requests.map((request) => `${JSON.stringify(request.headers)}\n${request.body}`).join('\n');
}

const chunk = (delta: Record<string, unknown>, options: { finish?: string } = {}) =>
  deepSeekChunk(delta, { model: 'deepseek-chat', ...(options.finish === undefined ? {} : { finish: options.finish, usage: deepSeekUsage(0, 100, 10) }) });

describe('a provider key', () => {
  it('goes only to the base URL the user configured: not to the workspace config\'s URL, a web_fetch target or an MCP server, and never the other provider\'s key', async () => {
    const provider = await server();
    const repositoryChoice = await server();
    const page = await server();
    const mcp = await server();
    page.enqueue({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'a page' });
    mcp.enqueue({ status: 500, body: 'no' }, { status: 500, body: 'no' }, { status: 500, body: 'no' });
    // The model asks web_fetch for the page, then answers.
    provider.enqueue(
      { body: openAISse([chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'web_fetch', arguments: JSON.stringify({ url: `${page.url}/page` }) } }] }), chunk({ content: '' }, { finish: 'tool_calls' })]) },
      { body: openAISse([chunk({ role: 'assistant', content: 'Done.' }), chunk({ content: '' }, { finish: 'stop' })]) },
    );
    writeFileSync(join(home, '.config', 'dagent', 'config.json'), JSON.stringify({ baseUrl: `${provider.url}/v1`, mcpServers: { notes: { url: `${mcp.url}/mcp` } } }));
    // The repository's own config names another server; it is not trusted.
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ baseUrl: `${repositoryChoice.url}/v1` }));

    const result = await dagent(['--approval', 'auto', 'react', 'fetch the page', '-m', 'deepseek:deepseek-chat']);

    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('sets baseUrl; ignored until you trust this workspace');
    expect(provider.requests).toHaveLength(2);
    for (const request of provider.requests) expect(request.headers.authorization).toBe(`Bearer ${DEEPSEEK_KEY}`);
    expect(everything(provider.requests)).not.toContain(OPENAI_KEY);
    expect(repositoryChoice.requests).toHaveLength(0);
    // The model did ask web_fetch for the page: the refusal went back to it, and the page saw nothing.
    expect(provider.requests[1]!.body).toContain('loopback');
    expect(page.requests).toHaveLength(0);
    expect(mcp.requests.length).toBeGreaterThan(0);
    for (const key of [DEEPSEEK_KEY, OPENAI_KEY]) expect(everything(mcp.requests)).not.toContain(key);
  });
});
