import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { GIT_LINK_MODE } from '../snapshots/file-git.js';
import { fileOf, linkStateOf, sameContent, type FileState, type PresentFileState } from '../snapshots/file-state.js';
import { createWorkspaceFiles } from '../snapshots/file-workspace.js';
import type { GitObjects, TreeEntry } from './git-objects.js';

const EXECUTABLE_MODE = '100755';

/** One file of a merged change as it was before and after, in the working copy's terms. */
export interface DeliveredFile {
  readonly path: string;
  readonly before: FileState;
  readonly after: FileState;
}

export interface Delivery {
  /** Every file of the change, before and after (whether written or not). */
  readonly files: readonly DeliveredFile[];
  /** Files left as they are: the working copy no longer had the content the change started from (the user edited them). */
  readonly keptYours: readonly string[];
}

/**
 * Brings a merged change (`parent` → `commit` on the run branch) into the user's working copy,
 * file by file through a temporary file and a rename: a file is written only when it still holds
 * the content the change started from, so the user's own edits are never overwritten.
 */
export async function deliverChange(objects: GitObjects, parent: string, commit: string, paths: readonly string[]): Promise<Delivery> {
  const workingCopy = createWorkspaceFiles(objects.repo);
  const files: DeliveredFile[] = [];
  const keptYours: string[] = [];
  // Both sides of every file are read at once (a few git commands, whatever their number); the working copy is then written file by file.
  const [beforeEntries, afterEntries] = await Promise.all([objects.entriesAt(parent, paths), objects.entriesAt(commit, paths)]);
  for (const path of paths) {
    const beforeEntry = beforeEntries.get(path) ?? null;
    const afterEntry = afterEntries.get(path) ?? null;
    const before = stateOf(beforeEntry);
    const after = stateOf(afterEntry);
    files.push({ path, before, after });
    const current = await workingCopy.read(path);
    if (sameContent(current, after)) continue;
    if (!sameContent(current, before)) {
      keptYours.push(path);
      continue;
    }
    if (after.kind === 'absent') await workingCopy.remove(path);
    else {
      await workingCopy.write(path, after as PresentFileState);
      if (afterEntry?.mode === EXECUTABLE_MODE) await chmod(join(objects.repo, path), 0o755);
    }
  }
  return { files, keptYours };
}

function stateOf(entry: TreeEntry | null): FileState {
  if (entry === null) return { kind: 'absent' };
  return entry.mode === GIT_LINK_MODE ? linkStateOf(entry.bytes.toString('utf8')) : fileOf(entry.bytes);
}
