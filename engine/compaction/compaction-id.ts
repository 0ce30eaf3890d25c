import { randomBytes } from 'node:crypto';

/** A fresh compaction id: `c-` and 8 hex digits. */
export function createCompactionId(): string {
  return `c-${randomBytes(4).toString('hex')}`;
}
