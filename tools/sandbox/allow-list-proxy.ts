import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blockedAddressReason, isIpLiteral, pinnedLookup, systemHostResolver, type HostResolver } from '../address-guard/index.js';
import { isHostAllowed } from './host-allow-list.js';

/** Ports the proxy connects to when the allow-list names none: HTTPS and HTTP. */
export const DEFAULT_PROXY_PORTS: readonly number[] = [443, 80];

export interface AllowListProxyOptions {
  /** Hosts commands may reach: `registry.npmjs.org`, `*.example.com`; `host:port` also allows that port for that host. */
  readonly allowHosts: readonly string[];
  readonly listen: 'socket' | 'port';
  /** Ports every allowed host may be reached on (443 and 80 when absent). */
  readonly allowPorts?: readonly number[];
  /** Resolves host names (the system resolver by default; a fake in tests). */
  readonly resolver?: HostResolver;
}

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
 * in absolute form. A host is reached only when it is on the allow-list, on an allowed port (443
 * and 80 unless configured), and every address it resolves to passes the rules `web_fetch` uses
 * (no loopback, private, link-local, CGNAT, multicast, … address); the connection then goes to the
 * address that was checked, never to a second resolution, so a wildcard entry or DNS rebinding
 * cannot point an allowed name at the host's own services. Anything else gets `403` with the
 * reason. Commands reach the proxy through `HTTP_PROXY`/`HTTPS_PROXY`; a program that ignores
 * those variables has no route out at all, since the sandbox has no network.
 */
export async function startAllowListProxy(options: AllowListProxyOptions): Promise<AllowListProxy> {
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const rules = proxyRules(options);
  const server = createServer((request, response) => void forwardPlainHttp(request, response, rules, refused));
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => void tunnel(request, client, head, rules, refused));
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

interface ProxyRules {
  readonly hosts: readonly string[];
  /** Ports every allowed host may use. */
  readonly ports: ReadonlySet<number>;
  /** `host:port` entries: a port allowed for the hosts its entry names. */
  readonly hostPorts: readonly { readonly host: string; readonly port: number }[];
  readonly resolver: HostResolver;
}

function proxyRules(options: AllowListProxyOptions): ProxyRules {
  const hosts: string[] = [];
  const hostPorts: { host: string; port: number }[] = [];
  for (const entry of options.allowHosts) {
    const withPort = /^([^:[\]]+|\[[^\]]+\]):(\d{1,5})$/.exec(entry.trim());
    if (withPort === null) hosts.push(entry);
    else {
      hosts.push(withPort[1]!);
      hostPorts.push({ host: withPort[1]!, port: Number(withPort[2]) });
    }
  }
  return { hosts, ports: new Set(options.allowPorts ?? DEFAULT_PROXY_PORTS), hostPorts, resolver: options.resolver ?? systemHostResolver };
}

/** The address to connect to for `host:port`, or why the proxy refuses it. */
async function vetTarget(host: string, port: number, rules: ProxyRules): Promise<{ readonly address: string } | { readonly refusal: string }> {
  if (!isHostAllowed(host, rules.hosts)) return { refusal: `${host} is not in the network allow-list` };
  if (!rules.ports.has(port) && !rules.hostPorts.some((entry) => entry.port === port && isHostAllowed(host, [entry.host]))) {
    return { refusal: `port ${port} of ${host} is not allowed (only ${[...rules.ports].join(' and ')}; allow another with "${host}:${port}" in sandbox.allowHosts)` };
  }
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: readonly string[];
  if (isIpLiteral(bare)) addresses = [bare];
  else {
    try {
      addresses = await rules.resolver.resolve(bare, AbortSignal.timeout(RESOLVE_TIMEOUT_MS));
    } catch (error) {
      return { refusal: `could not resolve ${host} (${(error as { code?: string }).code ?? (error as Error).message})` };
    }
  }
  if (addresses.length === 0) return { refusal: `${host} has no address` };
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason !== undefined) return { refusal: `${host} resolves to ${reason}` };
  }
  return { address: addresses[0]! };
}

/** How long a name may take to resolve before the proxy refuses it. */
const RESOLVE_TIMEOUT_MS = 10_000;

async function tunnel(request: IncomingMessage, client: Socket, head: Buffer, rules: ProxyRules, refused: string[]): Promise<void> {
  const target = parseAuthority(request.url ?? '');
  client.on('error', () => client.destroy());
  const vetted = target === undefined ? { refusal: `"${String(request.url).slice(0, 200)}" is not a host:port` } : await vetTarget(target.host, target.port, rules);
  if ('refusal' in vetted) {
    refused.push(target?.host ?? String(request.url));
    client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\ndagent sandbox: ${vetted.refusal}\n`);
    return;
  }
  const upstream = connect(target!.port, vetted.address, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  client.on('close', () => upstream.destroy());
}

async function forwardPlainHttp(request: IncomingMessage, response: ServerResponse, rules: ProxyRules, refused: string[]): Promise<void> {
  let url: URL;
  try {
    url = new URL(request.url ?? '');
  } catch {
    response.writeHead(400).end('dagent sandbox proxy: expected an absolute http:// URL\n');
    return;
  }
  const vetted = url.protocol === 'http:' ? await vetTarget(url.hostname, url.port === '' ? 80 : Number(url.port), rules) : { refusal: `${url.protocol} is not plain http` };
  if ('refusal' in vetted) {
    refused.push(url.hostname);
    response.writeHead(403, { 'content-type': 'text/plain' }).end(`dagent sandbox: ${vetted.refusal}\n`);
    return;
  }
  // The name stays in the request (Host header); the socket goes to the vetted address only.
  const upstream = httpRequest(url, { method: request.method, headers: request.headers, lookup: pinnedLookup(vetted.address) }, (reply) => {
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
