/** How web_fetch treats a response body. */
export type ContentKind = 'html' | 'text' | 'binary';

const TEXT_APPLICATION_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/ld+json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
]);

/** Decides from the Content-Type, then from the first bytes when the type is absent or generic. Pure. */
export function classifyContent(contentType: string | undefined, body: Buffer): ContentKind {
  const type = mediaType(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('text/') || TEXT_APPLICATION_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml')) return 'text';
  if (type !== '' && type !== 'application/octet-stream') return 'binary';
  return sniff(body);
}

/** `text/html; charset=utf-8` → `text/html`. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** The body as text in the charset the server named (UTF-8 when unnamed or unknown). */
export function decodeText(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function sniff(body: Buffer): ContentKind {
  const head = body.subarray(0, 1024);
  if (head.includes(0)) return 'binary';
  const text = head.toString('utf8').trimStart().toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'html';
  return 'text';
}
