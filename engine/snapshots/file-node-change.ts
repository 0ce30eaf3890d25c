import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { nodeStartSeqs, pathHistories } from './file-history.js';
import { revertStep } from './file-revert-step.js';
import { ABSENT_FILE_HASH, deleteSnapshot, listSnapshots } from './file-snapshot-rows.js';
import { SnapshotPathThroughLinkError } from './file-snapshot-errors.js';
import { fileOf, isRedacted, linkStateOf, sameContent, stateHash, type FileState } from './file-state.js';
import type { WorkspaceFiles } from './file-workspace.js';

/**
 * The content hash each path had when the node began, as far as the files tell now: when the path
 * is still as the last node that changed it left it, its content before the first change by this
 * node or a node that started after it; otherwise (or when no node since changed it) its current
 * content (`absent` for none). At the node's end and later alike, while nothing outside the run
 * changed the path, this is what the node read.
 */
export async function nodeInputHashes(db: Kysely<Database>, runId: string, nodeId: string, files: WorkspaceFiles, paths: readonly string[]): Promise<Record<string, string>> {
  const starts = await nodeStartSeqs(db, runId);
  const began = starts.get(nodeId) ?? Number.MAX_SAFE_INTEGER;
  const histories = new Map(pathHistories(await listSnapshots(db, runId), starts).map((history) => [history.path, history.snapshots]));
  const hashes: Record<string, string> = {};
  for (const path of [...new Set(paths)].sort()) {
    const current = await files.read(path).catch(() => undefined);
    if (current === undefined) {
      hashes[path] = 'unreadable';
      continue;
    }
    const history = histories.get(path) ?? [];
    const last = history.at(-1);
    const since = history.find((snapshot) => snapshot.nodeId === nodeId || (starts.get(snapshot.nodeId) ?? Number.MAX_SAFE_INTEGER) > began);
    const state = since !== undefined && last?.after !== undefined && sameContent(last.after, current) ? since.before : current;
    hashes[path] = stateHash(state) ?? ABSENT_FILE_HASH;
  }
  return hashes;
}

/**
 * Undoes a node's recorded change as `revert --node` does (the change undone by a three-way merge
 * onto later edits, exactly when the file is as the node left it) and forgets the node's snapshots, so
 * its next attempt records its own. A file changed since in the lines the node touched is left as it is.
 */
export async function revertNodeChange(db: Kysely<Database>, runId: string, nodeId: string, files: WorkspaceFiles): Promise<{ reverted: string[]; conflicts: string[] }> {
  const reverted: string[] = [];
  const conflicts: string[] = [];
  for (const snapshot of await listSnapshots(db, runId, nodeId)) {
    const current = await files.read(snapshot.path);
    const step = revertStep({ target: snapshot.before, changedTo: snapshot.after, current, force: false });
    if (step.action === 'conflict') conflicts.push(snapshot.path);
    else if (step.action !== 'unchanged') {
      if (step.action === 'delete') await files.remove(snapshot.path);
      else if (step.action === 'relink') await files.write(snapshot.path, linkStateOf(step.target));
      else await files.write(snapshot.path, fileOf(step.bytes));
      reverted.push(snapshot.path);
    }
    await deleteSnapshot(db, snapshot);
  }
  return { reverted, conflicts };
}

/** Writes each file back to its target state, in path order; one whose content is not held, or with a link on its path, is left and named (`unrestorable`). */
export async function putBackFiles(files: WorkspaceFiles, targets: ReadonlyMap<string, FileState>, keep: ReadonlySet<string>): Promise<{ restored: string[]; unrestorable: string[] }> {
  const restored: string[] = [];
  const unrestorable: string[] = [];
  for (const [path, target] of [...targets].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (sameContent(target, await files.read(path))) continue;
    if (target.kind === 'unrecorded' || isRedacted(target)) {
      unrestorable.push(path);
      continue;
    }
    try {
      if (target.kind === 'absent') await files.remove(path, keep);
      else await files.write(path, target);
      restored.push(path);
    } catch (error) {
      if (!(error instanceof SnapshotPathThroughLinkError)) throw error;
      unrestorable.push(path);
    }
  }
  return { restored, unrestorable };
}
