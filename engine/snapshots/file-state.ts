import { contentHash } from './file-content.js';

/** A file at one moment, as the snapshots know it. */
export type FileState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'file'; readonly bytes: Buffer; readonly hash: string }
  /** The file existed and its hash is known, but its content was not recorded (too large to keep). */
  | { readonly kind: 'unrecorded'; readonly hash: string };

export const ABSENT_FILE: FileState = { kind: 'absent' };

export function fileStateOf(bytes: Buffer | null): FileState {
  return bytes === null ? ABSENT_FILE : { kind: 'file', bytes, hash: contentHash(bytes) };
}

/** The content hash, or null for an absent file. */
export function stateHash(state: FileState): string | null {
  return state.kind === 'absent' ? null : state.hash;
}

/** Same content (compared by hash): two absent files are the same too. */
export function sameContent(a: FileState, b: FileState): boolean {
  return stateHash(a) === stateHash(b);
}

export function stateBytes(state: FileState): Buffer | null {
  return state.kind === 'file' ? state.bytes : null;
}
