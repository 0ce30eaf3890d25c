import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isGlobPattern, literalPrefix } from '../plan/index.js';
import { ABSENT_FILE } from './file-state.js';
import { readState, SNAPSHOT_EXCLUDED_FOLDERS } from './file-workspace.js';
import type { WriteSet } from './file-write-set.js';
import { isDagentTempFile } from './temp-file-name.js';

/** A file the write set covers, as a scan found it. */
export interface ScannedFile {
  readonly hash: string;
  readonly size: number;
}

/**
 * The files (and symbolic links, kept as links) a write set covers now, with their hashes: the
 * boundary of a node in a workspace without git. Only the folders under the patterns' literal
 * prefixes are walked; links to folders are not followed; `.git/` and `.dagent/` are never scanned.
 */
export async function scanWriteSet(root: string, writeSet: WriteSet): Promise<Map<string, ScannedFile>> {
  const candidates = new Set<string>();
  const folders = new Set<string>();
  for (const pattern of writeSet.patterns) {
    if (pattern.startsWith('!')) continue;
    const normalized = pattern.replace(/^\.\//, '');
    if (!isGlobPattern(normalized) && !normalized.endsWith('/')) candidates.add(normalized);
    else folders.add(literalPrefix(normalized).split('/').slice(0, -1).join('/'));
  }
  for (const folder of [...folders].sort()) {
    if ([...folders].some((other) => other !== folder && (other === '' || folder.startsWith(`${other}/`)))) continue;
    for (const path of await walk(root, folder)) candidates.add(path);
  }
  const found = new Map<string, ScannedFile>();
  for (const path of [...candidates].sort()) {
    if (!writeSet.covers(path)) continue;
    const state = await readState(root, path).catch(() => ABSENT_FILE);
    if (state.kind === 'file') found.set(path, { hash: state.hash, size: state.bytes.length });
    else if (state.kind === 'link') found.set(path, { hash: state.hash, size: Buffer.byteLength(state.target) });
  }
  return found;
}

/** Every file and link under `folder` (workspace-relative, '' for the root), without following links. */
async function walk(root: string, folder: string): Promise<string[]> {
  const paths: string[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const entries = await readdir(join(root, current), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = current === '' ? entry.name : `${current}/${entry.name}`;
      if (current === '' && SNAPSHOT_EXCLUDED_FOLDERS.includes(entry.name.toLowerCase())) continue;
      if (entry.isDirectory()) pending.push(path);
      else if ((entry.isFile() || entry.isSymbolicLink()) && !isDagentTempFile(entry.name)) paths.push(path);
    }
  }
  return paths;
}
