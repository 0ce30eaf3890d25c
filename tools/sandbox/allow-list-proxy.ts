import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isHostAllowed } from './host-allow-list.js';

/** Where the proxy listens: a Unix socket (bound into bubblewrap sandboxes) or a loopback port (macOS). */
export type ProxyEndpoint = { readonly kind: 'socket'; readonly path: string } | { readonly kind: 'port'; readonly port: number };

export interface AllowListProxy {
  readonly endpoint: ProxyEndpoint;
  /** Hosts refused so far, for the command's output. */
  readonly refused: readonly string[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy that lets commands reach only the allow-listed hosts. It serves `CONNECT host:port`
 * (HTTPS and any TLS: the proxy sees the host name, never the traffic) and plain `http://` requests
 * in absolute form; any other host gets `403`. Commands reach it through `HTTP_PROXY`/`HTTPS_PROXY`;
 * a program that ignores those variables has no route out at all, since the sandbox has no network.
 */
export async function startAllowListProxy(options: { readonly allowHosts: readonly string[]; readonly listen: 'socket' | 'port' }): Promise<AllowListProxy> {
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => forwardPlainHttp(request, response, options.allowHosts, refused));
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => tunnel(request, client, head, options.allowHosts, refused));
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let folder: string | undefined;
  let endpoint: ProxyEndpoint;
  if (options.listen === 'socket') {
    folder = await mkdtemp(join(tmpdir(), 'dagent-proxy-'));
    const path = join(folder, 'proxy.sock');
    await listen(server, path);
    endpoint = { kind: 'socket', path };
  } else {
    await listen(server, { host: '127.0.0.1', port: 0 });
    const address = server.address();
    endpoint = { kind: 'port', port: typeof address === 'object' && address !== null ? address.port : 0 };
  }
  server.unref();
  return {
    endpoint,
    refused,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (folder !== undefined) await rm(folder, { recursive: true, force: true });
    },
  };
}

function listen(server: Server, where: string | { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve();
    };
    if (typeof where === 'string') server.listen(where, done);
    else server.listen(where.port, where.host, done);
  });
}

function tunnel(request: IncomingMessage, client: Socket, head: Buffer, allowHosts: readonly string[], refused: string[]): void {
  const target = parseAuthority(request.url ?? '');
  client.on('error', () => client.destroy());
  if (target === undefined || !isHostAllowed(target.host, allowHosts)) {
    refused.push(target?.host ?? String(request.url));
    client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\ndagent sandbox: ${target?.host ?? 'this host'} is not in the network allow-list\n`);
    return;
  }
  const upstream = connect(target.port, target.host, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  client.on('close', () => upstream.destroy());
}

function forwardPlainHttp(request: IncomingMessage, response: ServerResponse, allowHosts: readonly string[], refused: string[]): void {
  let url: URL;
  try {
    url = new URL(request.url ?? '');
  } catch {
    response.writeHead(400).end('dagent sandbox proxy: expected an absolute http:// URL\n');
    return;
  }
  if (url.protocol !== 'http:' || !isHostAllowed(url.hostname, allowHosts)) {
    refused.push(url.hostname);
    response.writeHead(403, { 'content-type': 'text/plain' }).end(`dagent sandbox: ${url.hostname} is not in the network allow-list\n`);
    return;
  }
  const upstream = httpRequest(url, { method: request.method, headers: request.headers }, (reply) => {
    response.writeHead(reply.statusCode ?? 502, reply.headers);
    reply.pipe(response);
  });
  upstream.on('error', () => response.writeHead(502).end());
  request.pipe(upstream);
}

/** `host:port` of a CONNECT request (`[v6]:port` too). */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(authority);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: match[1] ?? match[2]!, port };
}
