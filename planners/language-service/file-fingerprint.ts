import { createHash } from 'node:crypto';

/** A file's content, hashed: what decides whether a file whose size or mtime moved really changed. */
export function contentHash(text: string | Buffer): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 20);
}

/** Whether a text holds the word anywhere (code, strings or comments): a file without it cannot reference it. */
export function mentionsWord(text: string, word: string): boolean {
  if (word === '') return true;
  return new RegExp(`(?<![\\p{L}\\p{N}_$])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}_$])`, 'u').test(text);
}

/** Whether a file may change types in files that do not import it: a global or module augmentation, a triple-slash reference. */
export function mayAffectOtherFiles(text: string): boolean {
  return /\bdeclare\s+(?:global|module)\b|\/\/\/\s*<reference\b/.test(text);
}
