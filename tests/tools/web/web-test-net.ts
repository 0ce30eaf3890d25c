import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { Agent } from 'undici';
import type { Connect, ConnectTarget, HostResolver } from '../../../tools/index.js';

/** The public address the test names resolve to; nothing ever connects to it for real. */
export const SITE_ADDRESS = '93.184.216.34';

/** What the test resolver answers: public names and names that resolve to blocked addresses. */
const ANSWERS: Readonly<Record<string, readonly string[]>> = {
  'site.test': [SITE_ADDRESS],
  'other.test': ['2606:2800:220:1:248:1893:25c8:1946'],
  'denied.test': [SITE_ADDRESS],
  'www.denied.test': [SITE_ADDRESS],
  'deep.sub.denied.test': [SITE_ADDRESS],
  'intranet.test': ['10.0.0.5'],
  'metadata.test': ['169.254.169.254'],
  'loop.test': ['127.0.0.1'],
  'v6loop.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'nat64.test': ['64:ff9b::a9fe:a9fe'],
  'cgnat.test': ['100.64.1.1'],
  'zero.test': ['0.0.0.0'],
  'ula.test': ['fd00::1'],
  'linklocal6.test': ['fe80::1'],
  'mixed.test': [SITE_ADDRESS, '10.0.0.1'],
  'mixed6.test': ['2606:2800:220:1:248:1893:25c8:1946', '::1'],
  'sixtofour.test': ['2002:a00:1::1'],
  'multicast.test': ['239.1.1.1'],
  'broadcast.test': ['255.255.255.255'],
};

/** A resolver that answers from the table above (and, for `rebind.test`, public first, then loopback), counting lookups. */
export function createTestResolver(): HostResolver & { readonly lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    async resolve(hostname) {
      const name = hostname.toLowerCase().replace(/\.$/, '');
      lookups.push(name);
      if (name === 'rebind.test') return lookups.filter((looked) => looked === 'rebind.test').length === 1 ? [SITE_ADDRESS] : ['127.0.0.1'];
      const answer = ANSWERS[name];
      if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return answer;
    },
  };
}

/**
 * The injected connect step: records every connection web_fetch attempts (host, port and the
 * vetted address it was pinned to) and makes the real one only to the loopback test server.
 */
export function createRecordingConnect(loopbackPort: () => number): Connect & { readonly attempts: ConnectTarget[] } {
  const attempts: ConnectTarget[] = [];
  const connect: Connect = (target, timeouts) => {
    attempts.push(target);
    return new Agent({
      connect: (_options, callback) => {
        const socket = netConnect({ host: '127.0.0.1', port: loopbackPort() });
        socket.once('connect', () => callback(null, socket));
        socket.once('error', (error) => callback(error, null));
      },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
    });
  };
  return Object.assign(connect, { attempts });
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** An HTTP server on 127.0.0.1 whose answer per path the test sets. */
export interface RoutedServer {
  readonly port: number;
  readonly paths: string[];
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startRoutedServer(): Promise<RoutedServer> {
  const routes = new Map<string, Handler>();
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    paths.push(path);
    const handler = routes.get(path.split('?')[0]!);
    if (handler === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('no route');
      return;
    }
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    paths,
    route: (path, handler) => routes.set(path, handler),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
