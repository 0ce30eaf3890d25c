import { contentHash } from './file-content.js';

/** A path at one moment, as the snapshots know it. */
export type FileState =
  | { readonly kind: 'absent' }
  /**
   * A file. `redacted`: the store kept its content with a secret (a key, a token) replaced by
   * `[REDACTED]`, so `bytes` are not the file's (`hash` is the real one): it is never written back.
   */
  | { readonly kind: 'file'; readonly bytes: Buffer; readonly hash: string; readonly redacted?: true }
  /** A symbolic link, kept as its target and never followed. */
  | { readonly kind: 'link'; readonly target: string; readonly hash: string }
  /** The file existed and its hash is known, but its content was not recorded (too large to keep). */
  | { readonly kind: 'unrecorded'; readonly hash: string };

export const ABSENT_FILE: FileState = { kind: 'absent' };

/** What can be put at a path: a file or a link. */
export type PresentFileState = Extract<FileState, { kind: 'file' | 'link' }>;

/** How a link's hash starts: a link and a file whose content is the link's target never compare equal. */
export const LINK_HASH_PREFIX = 'symlink:';

export function fileStateOf(bytes: Buffer | null): FileState {
  return bytes === null ? ABSENT_FILE : fileOf(bytes);
}

export function fileOf(bytes: Buffer): PresentFileState {
  return { kind: 'file', bytes, hash: contentHash(bytes) };
}

export function linkStateOf(target: string): PresentFileState {
  return { kind: 'link', target, hash: `${LINK_HASH_PREFIX}${contentHash(Buffer.from(target, 'utf8'))}` };
}

/** The content hash, or null for an absent file. */
export function stateHash(state: FileState): string | null {
  return state.kind === 'absent' ? null : state.hash;
}

/** Same content (compared by hash): two absent files are the same too. */
export function sameContent(a: FileState, b: FileState): boolean {
  return stateHash(a) === stateHash(b);
}

/** Whether the recorded content of `state` lost a secret to redaction, and cannot be put back. */
export function isRedacted(state: FileState): boolean {
  return state.kind === 'file' && state.redacted === true;
}

/** The bytes a state stores: a file's content, a link's target. */
export function stateBytes(state: FileState): Buffer | null {
  return state.kind === 'file' ? state.bytes : state.kind === 'link' ? Buffer.from(state.target, 'utf8') : null;
}
