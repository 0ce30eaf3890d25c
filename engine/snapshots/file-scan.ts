import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { escapePath, glob } from 'tinyglobby';
import { isGlobPattern } from '../plan/index.js';
import { contentHash } from './file-content.js';
import { SNAPSHOT_EXCLUDED_FOLDERS } from './file-workspace.js';
import type { WriteSet } from './file-write-set.js';

/** A file the write set covers, as a scan found it. */
export interface ScannedFile {
  readonly hash: string;
  readonly size: number;
}

/**
 * The files a write set covers now, with their hashes: the boundary of a node in a workspace
 * without git. Globs expand with tinyglobby (dotfiles included, symbolic links not followed);
 * `.git/` and `.dagent/` are never scanned.
 */
export async function scanWriteSet(root: string, writeSet: WriteSet): Promise<Map<string, ScannedFile>> {
  const patterns = writeSet.patterns.filter((pattern) => !pattern.startsWith('!')).map(globOf);
  const found = new Map<string, ScannedFile>();
  if (patterns.length === 0) return found;
  const paths = await glob(patterns, {
    cwd: root,
    dot: true,
    onlyFiles: true,
    expandDirectories: false,
    followSymbolicLinks: false,
    ignore: SNAPSHOT_EXCLUDED_FOLDERS.map((folder) => `${folder}/**`),
  });
  for (const path of paths.sort()) {
    if (!writeSet.covers(path)) continue;
    const bytes = await readFile(join(root, path)).catch(() => null);
    if (bytes !== null) found.set(path, { hash: contentHash(bytes), size: bytes.length });
  }
  return found;
}

function globOf(pattern: string): string {
  const normalized = pattern.replace(/^\.\//, '');
  if (isGlobPattern(normalized)) return normalized;
  return normalized.endsWith('/') ? `${escapePath(normalized)}**` : escapePath(normalized);
}
