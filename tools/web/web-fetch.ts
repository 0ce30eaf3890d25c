import { z } from 'zod';
import { defineTool, loadToolDescription, type Tool, type ToolOutput } from '../define-tool.js';
import { formatBytes } from '../text-file.js';
import { ToolError } from '../tool-errors/index.js';
import { classifyContent, decodeText, mediaType } from './classify-content.js';
import type { Connect } from './connect-target.js';
import { wrapExternalContent } from '../../engine/index.js';
import { guardedFetch, type FetchedPage } from './guarded-fetch.js';
import { systemHostResolver, type HostResolver } from '../address-guard/index.js';
import type { HostRules } from './host-rules.js';
import { htmlToMarkdown } from './html-to-markdown.js';

/** Bytes read from the network, and bytes kept after decompression, by default and at most. */
export const DEFAULT_WEB_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_WEB_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_WEB_HEADERS_TIMEOUT_MS = 15_000;
export const DEFAULT_WEB_TOTAL_TIMEOUT_MS = 30_000;
/** Characters of a page shown to the model, so a page is never cut by the runtime's own cap. */
export const MAX_WEB_CONTENT_CHARS = 45_000;

export interface WebFetchOptions extends HostRules {
  readonly maxBytes?: number;
  readonly connectTimeoutMs?: number;
  readonly headersTimeoutMs?: number;
  readonly totalTimeoutMs?: number;
  /** Resolution and connection are injectable, so tests can answer with private addresses and record every connection. */
  readonly resolver?: HostResolver;
  readonly connect?: Connect;
  readonly userAgent?: string;
  /** Follow redirects to other hosts (each hop vetted); default: only within the fetched URL's host. */
  readonly crossHostRedirects?: boolean;
}

const webFetchArgs = z.strictObject({
  url: z.string().min(1).describe('the http(s) URL to fetch'),
  max_bytes: z.number().int().min(1).optional().describe('most bytes of the page to read (default and maximum: the configured cap)'),
});

/** `web_fetch`: one public web page as Markdown (HTML) or text, marked as untrusted external content. */
export function createWebFetchTool(options: WebFetchOptions = {}): Tool<z.output<typeof webFetchArgs>> {
  const maxBytes = options.maxBytes ?? DEFAULT_WEB_MAX_BYTES;
  const totalTimeoutMs = options.totalTimeoutMs ?? DEFAULT_WEB_TOTAL_TIMEOUT_MS;
  return defineTool({
    name: 'web_fetch',
    description: loadToolDescription(import.meta.url, 'web-fetch.md'),
    args: webFetchArgs,
    risk: 'network',
    timeoutMs: totalTimeoutMs + 5_000,
    summarize: (args) => `web_fetch ${args.url}`,
    async execute(args, context) {
      const cap = Math.min(args.max_bytes ?? maxBytes, maxBytes);
      const page = await guardedFetch(
        args.url,
        {
          ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
          ...(options.deniedHosts === undefined ? {} : { deniedHosts: options.deniedHosts }),
          resolver: options.resolver ?? systemHostResolver,
          ...(options.connect === undefined ? {} : { connect: options.connect }),
          maxWireBytes: cap,
          maxDecodedBytes: cap,
          connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_WEB_CONNECT_TIMEOUT_MS,
          headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_WEB_HEADERS_TIMEOUT_MS,
          totalTimeoutMs,
          userAgent: options.userAgent ?? 'dagent-web-fetch/0.1',
          crossHostRedirects: options.crossHostRedirects === true,
        },
        context.signal,
      );
      return renderPage(args.url, page);
    },
  });
}

async function renderPage(requestedUrl: string, page: FetchedPage): Promise<ToolOutput> {
  const type = mediaType(page.contentType) || 'unknown';
  const kind = classifyContent(page.contentType, page.body);
  if (kind === 'binary') {
    throw new ToolError(`${page.url} is binary content (${type}, ${page.truncated ? 'at least ' : ''}${formatBytes(page.body.length)}); web_fetch returns text and HTML pages only`, { outcome: 'refused' });
  }
  const text = decodeText(page.body, page.contentType);
  const converted = kind === 'html' ? await htmlToMarkdown(text) : { markdown: text };
  const body = converted.markdown;
  const shown = body.length > MAX_WEB_CONTENT_CHARS ? body.slice(0, MAX_WEB_CONTENT_CHARS) : body;
  const notes: string[] = [];
  if (page.truncated) notes.push(`(the page was cut at ${formatBytes(page.body.length)} by the ${page.stoppedBy === 'wire-cap' ? 'download' : 'decompressed size'} cap)`);
  if (shown.length < body.length) notes.push(`(showing the first ${MAX_WEB_CONTENT_CHARS} of ${body.length} characters)`);
  const failed = page.status >= 400;
  const header = [`URL: ${page.url}`, `Status: ${page.status}${page.statusText ? ` ${page.statusText}` : ''}`, `Content-Type: ${type}`];
  if ('title' in converted && converted.title !== undefined) header.push(`Title: ${converted.title}`);
  if (page.redirects.length > 0) header.push(`Redirected from: ${requestedUrl}`);
  const document = [header.join('\n'), '', shown, ...(notes.length === 0 ? [] : ['', ...notes])].join('\n');
  const content = wrapExternalContent(document, { source: 'web_fetch', url: page.url });
  return {
    content: failed ? `error: HTTP ${page.status} from ${page.url}\n${content}` : content,
    ...(failed ? { isError: true, outcome: 'error' as const } : {}),
    meta: {
      url: page.url,
      requestedUrl,
      status: page.status,
      contentType: type,
      converted: kind === 'html' ? 'html-to-markdown' : 'none',
      bytes: page.body.length,
      wireBytes: page.wireBytes,
      redirects: page.redirects,
      truncated: page.truncated || shown.length < body.length,
      originalLength: body.length,
      provider: 'web_fetch',
    },
  };
}
