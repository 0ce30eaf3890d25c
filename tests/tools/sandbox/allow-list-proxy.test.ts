import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAllowListProxy, type AllowListProxy } from '../../../tools/sandbox/index.js';

/**
 * The sandbox's network proxy vets addresses as web_fetch does: an allowed name that resolves to
 * loopback, a private network or link-local (a wildcard entry, DNS rebinding) is refused, and so is
 * any port but 443 and 80 unless the allow-list names it. The "host service" here is a loopback
 * server the test starts; it must see no connection.
 */

let service: Server;
let servicePort: number;
let serviceConnections: number;
let proxy: AllowListProxy | undefined;
let resolutions: string[];

beforeEach(async () => {
  serviceConnections = 0;
  resolutions = [];
  service = createServer((_request, response) => response.end('host service'));
  service.on('connection', () => (serviceConnections += 1));
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  servicePort = (service.address() as AddressInfo).port;
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await new Promise<void>((resolve) => service.close(() => resolve()));
});

/** A resolver that answers from a table, recording each name it is asked. */
function fakeResolver(table: Readonly<Record<string, readonly string[]>>) {
  return {
    resolve: async (hostname: string) => {
      resolutions.push(hostname);
      return table[hostname] ?? [];
    },
  };
}

async function start(allowHosts: readonly string[], table: Readonly<Record<string, readonly string[]>>, allowPorts?: readonly number[]): Promise<number> {
  proxy = await startAllowListProxy({ allowHosts, listen: 'port', resolver: fakeResolver(table), ...(allowPorts === undefined ? {} : { allowPorts }) });
  if (proxy.endpoint.kind !== 'port') throw new Error('expected a port endpoint');
  return proxy.endpoint.port;
}

/** Sends `request` to the proxy and returns the head of its answer. */
function ask(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n\r\n') && (answer.includes('\n', answer.indexOf('\r\n\r\n') + 4) || !answer.startsWith('HTTP/1.1 403'))) socket.destroy();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const connectTo = (authority: string) => `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;

describe('the allow-list proxy', () => {
  it('refuses an allowed wildcard name that resolves to loopback, and the host service sees nothing', async () => {
    const port = await start(['*.example.test'], { 'api.example.test': ['127.0.0.1'] }, [servicePort]);

    const answer = await ask(port, connectTo(`api.example.test:${servicePort}`));

    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    expect(answer).toContain('api.example.test resolves to 127.0.0.1 is a loopback address');
    expect(serviceConnections).toBe(0);
  });

  it('refuses a name with any private address among its answers (a rebinding mix)', async () => {
    const port = await start(['mixed.example.test'], { 'mixed.example.test': ['93.184.216.34', '10.0.0.5'] });
    expect(await ask(port, connectTo('mixed.example.test:443'))).toContain('resolves to 10.0.0.5 is a private network address');
  });

  it('refuses an allowed address literal in a link-local range (cloud metadata)', async () => {
    const port = await start(['169.254.169.254'], {});
    expect(await ask(port, connectTo('169.254.169.254:80'))).toContain('169.254.169.254 is a link-local address');
    expect(resolutions).toEqual([]);
  });

  it('allows only 443 and 80 by default, before resolving anything; a host:port entry allows one more', async () => {
    const port = await start(['public.example.test', `api.example.test:${servicePort}`], { 'public.example.test': ['93.184.216.34'], 'api.example.test': ['127.0.0.1'] });

    const ssh = await ask(port, connectTo('public.example.test:22'));
    expect(ssh).toMatch(/^HTTP\/1\.1 403/);
    expect(ssh).toContain('port 22 of public.example.test is not allowed (only 443 and 80; allow another with "public.example.test:22" in sandbox.allowHosts)');
    expect(resolutions).toEqual([]);

    // The named port passes the port rule; the address rule still refuses loopback.
    expect(await ask(port, connectTo(`api.example.test:${servicePort}`))).toContain('resolves to 127.0.0.1 is a loopback address');
    expect(serviceConnections).toBe(0);
  });

  it('applies the same rules to plain http:// requests, resolving the name once', async () => {
    const port = await start(['*.example.test'], { 'api.example.test': ['127.0.0.1'] }, [servicePort]);

    const answer = await ask(port, `GET http://api.example.test:${servicePort}/ HTTP/1.1\r\nHost: api.example.test:${servicePort}\r\nConnection: close\r\n\r\n`);

    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    expect(answer).toContain('resolves to 127.0.0.1 is a loopback address');
    expect(resolutions).toEqual(['api.example.test']);
    expect(serviceConnections).toBe(0);
  });

  it('refuses a host that is not on the list, as before', async () => {
    const port = await start(['registry.example.test'], {});
    expect(await ask(port, connectTo('other.example.test:443'))).toContain('other.example.test is not in the network allow-list');
  });
});
