import { createHash } from 'node:crypto';

/** A memory's text as stored: trimmed, runs of whitespace collapsed to one space. */
export function normalizeMemoryContent(content: string): string {
  return content.trim().replace(/\s+/g, ' ');
}

/** The deduplication key: sha256 of the normalized text, case-insensitive. */
export function memoryContentHash(content: string): string {
  return createHash('sha256').update(normalizeMemoryContent(content).toLowerCase()).digest('hex');
}
