import type { Dispatcher } from 'undici';
import { pinnedLookup } from '../address-guard/index.js';

/** Where one hop of a fetch will connect: the URL's host and port, and the vetted address it is pinned to. */
export interface ConnectTarget {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number;
  readonly address: string;
}

/**
 * The connect step: a dispatcher whose every connection goes to `target.address` and nowhere
 * else. Injected in tests to record each attempted connection.
 */
export type Connect = (target: ConnectTarget, timeouts: ConnectTimeouts) => Dispatcher | Promise<Dispatcher>;

export interface ConnectTimeouts {
  readonly connectMs: number;
  readonly headersMs: number;
  readonly bodyMs: number;
}

/**
 * An undici Agent whose lookup answers with the vetted address only, so the socket cannot reach
 * an address that was not checked (no second resolution; TLS still verifies the host name).
 */
export const connectPinned: Connect = async (target, timeouts) => {
  // undici is loaded on the first fetch, not with every CLI command.
  const { Agent } = await import('undici');
  return new Agent({
    connect: { lookup: pinnedLookup(target.address), timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    connections: 1,
    pipelining: 0,
  });
};
