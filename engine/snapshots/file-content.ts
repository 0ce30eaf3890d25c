import { createHash } from 'node:crypto';

/** How snapshot contents are stored in the database: text, or base64 for binary content. */
export type FileContentEncoding = 'utf8' | 'base64';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Binary content cannot be stored as text: bytes that are not valid UTF-8 would not survive the
 * round trip, and PostgreSQL text cannot hold NUL. Such content is stored as base64.
 */
export function isBinaryContent(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return true;
  try {
    STRICT_UTF8.decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/** The one encoding that can hold every given content (absent contents do not count). */
export function encodingFor(contents: readonly (Uint8Array | null)[]): FileContentEncoding {
  return contents.some((bytes) => bytes !== null && isBinaryContent(bytes)) ? 'base64' : 'utf8';
}

export function encodeContent(bytes: Buffer, encoding: FileContentEncoding): string {
  return encoding === 'base64' ? bytes.toString('base64') : STRICT_UTF8.decode(bytes);
}

export function decodeContent(text: string, encoding: FileContentEncoding): Buffer {
  return Buffer.from(text, encoding === 'base64' ? 'base64' : 'utf8');
}

/** SHA-256 of the bytes, hex: the `hash_before` / `hash_after` of a snapshot. */
export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
