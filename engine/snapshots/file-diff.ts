import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { fileDiff, type FileDiff, type RunDiff } from './file-diff-render.js';
import { assertNodeInRun, runStatusOf, nodeStartSeqs, pathHistories, undeclaredChanges } from './file-history.js';
import { NothingToDiffError } from './file-snapshot-errors.js';
import { listSnapshots } from './file-snapshot-rows.js';
import { assertWorkspace, createWorkspaceFiles } from './file-workspace.js';

export interface DiffRunOptions {
  /** Only this node's change: its content before → its content after. */
  readonly nodeId?: string;
}

/**
 * The files a run changed, as structured diffs (`renderUnifiedDiff` prints them). For one node:
 * each file from before the node to after it (the current content while the node has not ended).
 * For the whole run: each file from before the first node that changed it to its current
 * content. Files that ended as they began are left out; a file a node changed outside its
 * declared writes is marked `undeclared`. `runId` is a resolved id (`getRun`). Throws
 * `UnknownRunError`, `UnknownNodeError`, `NothingToDiffError` (no snapshots at all), `WorkspaceMissingError`.
 */
export async function diffRun(db: Kysely<Database>, runId: string, workspace: string, options: DiffRunOptions = {}): Promise<RunDiff> {
  await runStatusOf(db, runId);
  if (options.nodeId !== undefined) await assertNodeInRun(db, runId, options.nodeId);
  const snapshots = await listSnapshots(db, runId, options.nodeId);
  if (snapshots.length === 0) throw new NothingToDiffError(runId, options.nodeId);
  const files = createWorkspaceFiles(workspace);
  const currentOf = (path: string) => files.read(path);
  const diffs: (FileDiff | undefined)[] = [];
  if (options.nodeId !== undefined) {
    if (snapshots.some((snapshot) => snapshot.after === undefined)) await assertWorkspace(workspace);
    for (const snapshot of snapshots) diffs.push(fileDiff(snapshot.path, snapshot.before, snapshot.after ?? (await currentOf(snapshot.path)), [snapshot.nodeId]));
  } else {
    await assertWorkspace(workspace);
    for (const history of pathHistories(snapshots, await nodeStartSeqs(db, runId))) {
      const nodeIds = history.snapshots.map((snapshot) => snapshot.nodeId);
      diffs.push(fileDiff(history.path, history.snapshots[0].before, await currentOf(history.path), nodeIds));
    }
  }
  const undeclared = await undeclaredChanges(db, runId);
  const changed = diffs
    .filter((diff): diff is FileDiff => diff !== undefined)
    .map((diff) => (diff.nodeIds.some((nodeId) => undeclared.get(nodeId)?.has(diff.path) === true) ? { ...diff, undeclared: true as const } : diff));
  return { runId: runId, nodeId: options.nodeId ?? null, files: changed };
}
