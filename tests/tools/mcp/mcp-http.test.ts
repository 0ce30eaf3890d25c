import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalToolRuntime, McpServers } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';

let http: HttpServer | undefined;
let servers: McpServers | undefined;
let bed: ToolTestBed | undefined;
afterEach(async () => {
  await servers?.stop();
  await bed?.cleanup();
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http === undefined ? resolve() : http.close(() => resolve())));
  http = servers = bed = undefined;
});

/** An MCP server over streamable HTTP on 127.0.0.1 with one `echo` tool; records the request headers. */
async function startHttpServer(): Promise<{ url: string; headers: IncomingHttpHeaders[] }> {
  const mcp = new Server({ name: 'http-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'echo', description: 'Echoes its text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
  }));
  mcp.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `echo: ${String(request.params.arguments?.text)}` }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  const headers: IncomingHttpHeaders[] = [];
  http = createServer((request, response) => {
    headers.push(request.headers);
    void transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, headers };
}

describe('MCP servers over streamable HTTP', () => {
  it('connects with the configured headers, lists the tools as network tools and calls them', async () => {
    const server = await startHttpServer();
    servers = new McpServers([{ name: 'docs', transport: { kind: 'http', url: server.url, headers: { authorization: 'Bearer token-1' } } }], { workspace: process.cwd() });
    const tools = await servers.start();
    expect(servers.status()).toEqual([{ name: 'docs', transport: 'http', state: 'ready', tools: [{ name: 'docs__echo', mcpName: 'echo', risk: 'network', description: 'Echoes its text.' }] }]);
    bed = await openToolTestBed();
    const result = await bed.call(new LocalToolRuntime({ approval: 'auto', tools }), 'docs__echo', { text: 'hi' });
    expect(result.content).toContain('echo: hi');
    expect(server.headers.length).toBeGreaterThan(0);
    expect(server.headers.every((headers) => headers.authorization === 'Bearer token-1')).toBe(true);
  });

  it('reports an endpoint that does not answer as a failed server', async () => {
    servers = new McpServers([{ name: 'gone', transport: { kind: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} } }], { workspace: process.cwd(), startupTimeoutMs: 3_000 });
    expect(await servers.start()).toEqual([]);
    expect(servers.status()[0]).toMatchObject({ name: 'gone', state: 'failed', error: expect.any(String) });
  });
});
