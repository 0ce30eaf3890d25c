import { open } from 'node:fs/promises';
import { extname } from 'node:path';

/** Bytes looked at to tell text from binary (git looks at the first 8000). */
export const BINARY_SNIFF_BYTES = 8_000;

const BINARY_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.wasm': 'application/wasm',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.db': 'application/vnd.sqlite3',
  '.sqlite': 'application/vnd.sqlite3',
};

/** True when the sample holds a NUL byte, as git decides. Pure. */
export function looksBinary(sample: Uint8Array): boolean {
  return sample.includes(0);
}

/** Whether a file is binary, judged from its first bytes. */
export async function isBinaryFile(absolute: string): Promise<boolean> {
  const handle = await open(absolute, 'r');
  try {
    const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_SNIFF_BYTES, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** A best guess of a binary file's type from its name, for messages and meta. */
export function binaryContentType(path: string): string {
  return BINARY_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** `12.3 KB` */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
