import { rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { glob } from 'tinyglobby';
import { createWriteSet } from './file-write-set.js';

/** How writers name the file they write before renaming it into place: `.<name>.<hex>.dagent-tmp`. */
const TEMP_FILE = /^\.(.+)\.[0-9a-f]+\.dagent-tmp$/;

/**
 * Removes the temporary files a killed process left beside the files of a write set (a kill
 * between writing the temporary file and renaming it). Only temporaries whose target the write
 * set covers are touched, so a sibling node's writes in the same folder are left alone.
 * Returns the removed paths.
 */
export async function removeTempLeftovers(workspace: string, writes: readonly string[]): Promise<string[]> {
  if (writes.length === 0) return [];
  const writeSet = createWriteSet(writes);
  const candidates = await glob('**/.*.dagent-tmp', { cwd: workspace, dot: true, onlyFiles: true, ignore: ['**/node_modules/**', '.git/**', '.dagent/**'] });
  const removed: string[] = [];
  for (const path of candidates) {
    const match = TEMP_FILE.exec(posix.basename(path));
    if (match === null) continue;
    const target = posix.join(posix.dirname(path), match[1]!);
    if (!writeSet.covers(target)) continue;
    await rm(join(workspace, path), { force: true });
    removed.push(path);
  }
  return removed;
}
