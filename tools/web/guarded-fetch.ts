import type { Dispatcher } from 'undici';
import { ToolError } from '../tool-errors/index.js';
import { blockedAddressReason, type HostResolver } from '../address-guard/index.js';
import { checkWebUrl, refused } from './check-web-url.js';
import { connectPinned, type Connect, type ConnectTarget } from './connect-target.js';
import type { HostRules } from './host-rules.js';
import { readCappedBody, type BodyCaps } from './read-capped-body.js';

/** Redirects followed at most (each hop is checked like the first URL). */
export const MAX_REDIRECTS = 5;

export interface GuardedFetchOptions extends HostRules, BodyCaps {
  readonly resolver: HostResolver;
  readonly connect?: Connect;
  readonly connectTimeoutMs: number;
  /** Until the response headers arrive, per hop. */
  readonly headersTimeoutMs: number;
  /** The whole fetch, redirects and body included. */
  readonly totalTimeoutMs: number;
  readonly userAgent: string;
  /** Follow redirects to other hosts too (each hop still vetted); by default only within the first URL's host. */
  readonly crossHostRedirects?: boolean;
}

export interface FetchedPage {
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly contentType: string | undefined;
  readonly body: Buffer;
  readonly wireBytes: number;
  readonly truncated: boolean;
  readonly stoppedBy?: 'wire-cap' | 'decoded-cap';
  /** Every URL redirected to, in order. */
  readonly redirects: readonly string[];
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * GETs a public web page under the SSRF guard: each hop's URL is checked, its host resolved
 * once, every address vetted, and the connection pinned to the vetted address; redirects are
 * followed by hand (at most 5), and the body is read under the byte caps, all within the timeouts.
 */
export async function guardedFetch(rawUrl: string, options: GuardedFetchOptions, signal: AbortSignal): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(options.totalTimeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  const redirects: string[] = [];
  let current = rawUrl;
  try {
    for (;;) {
      const target = await vetTarget(current, options, combined);
      const dispatcher = await (options.connect ?? connectPinned)(target.connect, {
        connectMs: options.connectTimeoutMs,
        headersMs: options.headersTimeoutMs,
        bodyMs: options.totalTimeoutMs,
      });
      try {
        const response = await dispatcher.request({
          origin: target.url.origin,
          path: `${target.url.pathname}${target.url.search}`,
          method: 'GET',
          headers: requestHeaders(options.userAgent),
          signal: combined,
        });
        const location = header(response.headers, 'location');
        if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
          await response.body.dump().catch(() => undefined);
          if (redirects.length >= MAX_REDIRECTS) throw new ToolError(`too many redirects (more than ${MAX_REDIRECTS}); last hop ${target.url.href} → ${location}`);
          current = resolveLocation(location, target.url);
          if (options.crossHostRedirects !== true) keepToHost(target.url, current);
          redirects.push(current);
          continue;
        }
        const body = await readCappedBody(response.body, header(response.headers, 'content-encoding'), options).finally(() => response.body.destroy());
        return {
          url: target.url.href,
          status: response.statusCode,
          statusText: response.statusText ?? '',
          contentType: header(response.headers, 'content-type'),
          body: body.bytes,
          wireBytes: body.wireBytes,
          truncated: body.truncated,
          ...(body.stoppedBy === undefined ? {} : { stoppedBy: body.stoppedBy }),
          redirects,
        };
      } finally {
        void dispatcher.close().catch(() => undefined);
      }
    }
  } catch (error) {
    throw describeFetchError(error, { deadline, signal, options, url: current });
  }
}

interface VettedTarget {
  readonly url: URL;
  readonly connect: ConnectTarget;
}

async function vetTarget(raw: string, options: GuardedFetchOptions, signal: AbortSignal): Promise<VettedTarget> {
  const checked = checkWebUrl(raw, options);
  const url = checked.url;
  const protocol = url.protocol as 'http:' | 'https:';
  const port = url.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(url.port);
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (checked.literal !== undefined) return { url, connect: { protocol, hostname, port, address: checked.literal } };
  let addresses: readonly string[];
  try {
    addresses = await options.resolver.resolve(hostname, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ToolError(`could not resolve ${hostname} (${(error as { code?: string }).code ?? (error as Error).message})`);
  }
  if (addresses.length === 0) throw new ToolError(`${hostname} has no address`);
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason !== undefined) throw refused(`${hostname} resolves to ${reason}`);
  }
  return { url, connect: { protocol, hostname, port, address: addresses[0]! } };
}

function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    throw new ToolError(`the server redirected to an invalid location "${location.slice(0, 200)}"`);
  }
}

/** A redirect may change scheme, port and path, not the host, unless `web.crossHostRedirects` allows it. */
function keepToHost(from: URL, to: string): void {
  const next = URL.canParse(to) ? new URL(to).hostname : '';
  if (next === from.hostname) return;
  throw new ToolError(
    `${from.href} redirected to another host (${to.slice(0, 200)}); web_fetch follows redirects only within the same host (set web.crossHostRedirects: true to allow other hosts)`,
    { outcome: 'refused' },
  );
}

function requestHeaders(userAgent: string): Record<string, string> {
  return {
    'user-agent': userAgent,
    accept: 'text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
    'accept-encoding': 'gzip, deflate, br',
  };
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function describeFetchError(error: unknown, context: { deadline: AbortSignal; signal: AbortSignal; options: GuardedFetchOptions; url: string }): unknown {
  if (error instanceof ToolError) return error;
  if (context.signal.aborted) return context.signal.reason ?? error;
  if (context.deadline.aborted) {
    return new ToolError(`the fetch of ${context.url} did not finish within its total time limit of ${context.options.totalTimeoutMs} ms`, { outcome: 'error' });
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new ToolError(`${context.url} sent no response headers within ${context.options.headersTimeoutMs} ms`);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new ToolError(`could not connect to ${context.url} within ${context.options.connectTimeoutMs} ms`);
  if (code === 'UND_ERR_BODY_TIMEOUT') return new ToolError(`${context.url} stopped sending its body`);
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(`fetching ${context.url} failed: ${message}${typeof code === 'string' ? ` (${code})` : ''}`);
}
