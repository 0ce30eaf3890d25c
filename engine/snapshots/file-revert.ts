import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { EventLog } from '../session/event-log.js';
import { RunStillRunningError } from './file-snapshot-errors.js';
import { assertNodeInRun, nodeStartSeqs, pathHistories, runStatusOf } from './file-history.js';
import { hasOtherCommittedCopy } from './committed-copy.js';
import { revertStep, type RevertStep } from './file-revert-step.js';
import { listSnapshots } from './file-snapshot-rows.js';
import { fileOf, linkStateOf, type FileState } from './file-state.js';
import { SnapshotPathThroughLinkError } from './file-snapshot-errors.js';
import { assertWorkspace, createWorkspaceFiles, type WorkspaceFiles } from './file-workspace.js';

export interface RevertRunOptions {
  /** Only undo this node's change, keeping later nodes' edits. */
  readonly nodeId?: string;
  /** Write the content before even over conflicting later edits, and revert even a running run. */
  readonly force?: boolean;
  /** Work out what the revert would do without writing a file or appending an event. */
  readonly dryRun?: boolean;
  /** The run's log: each reverted file appends `file/reverted`, the revert `revert/finished` (not on a dry run). */
  readonly log: EventLog;
}

/** How a reverted file came back: exactly as before, deleted (it was created), or merged: the change undone, later edits kept. */
export type RevertAction = 'restored' | 'deleted' | 'patched';

export interface RevertedFile {
  readonly path: string;
  readonly action: RevertAction;
  /** The node whose "before" the file went back to. */
  readonly nodeId: string;
  /** Written over edits made since the change (`force`): they are gone. */
  readonly overwrote?: true;
}

export interface RevertConflict {
  readonly path: string;
  readonly nodeId: string;
  readonly reason: string;
  /**
   * What can still put the file back: `force` (`--force` writes the content before over the edits
   * made since); `git` (its content before is not held, but the workspace's git repository has the
   * file committed, as it is not now: `git checkout HEAD -- PATH`); `none` (nothing dagent knows of).
   */
  readonly remedy: RevertRemedy;
}

export type RevertRemedy = 'force' | 'git' | 'none';

export interface RevertOutcome {
  readonly runId: string;
  readonly nodeId: string | null;
  readonly restored: readonly RevertedFile[];
  /** Left untouched: changed since in a way the revert cannot undo (see `force`). */
  readonly conflicted: readonly RevertConflict[];
  /** Already as they were before. */
  readonly unchanged: readonly string[];
}

interface RevertTarget {
  readonly path: string;
  readonly nodeId: string;
  readonly target: FileState;
  readonly changedTo: FileState | undefined;
  /** Every node whose change to the path this revert undoes. */
  readonly nodes: readonly string[];
}

/**
 * Puts files back as they were before the run (each to its content before the first node that
 * changed it; created files deleted), or before one node (its change undone by a three-way merge
 * onto the current content, so later edits of other lines, even the next one, survive). A file that changed
 * since in a way the revert cannot undo is reported as a conflict and left untouched, unless
 * `force`. Writes go through a temporary file and a rename. With `dryRun`, nothing is written and
 * the outcome tells what would have happened. Returns the outcome (`runId` is a resolved id); throws only for an unknown run
 * or node, a running run (unless `force` or `dryRun`), a missing workspace, or an I/O fault.
 */
export async function revertRun(db: Kysely<Database>, runId: string, workspace: string, options: RevertRunOptions): Promise<RevertOutcome> {
  const status = await runStatusOf(db, runId);
  if (status === 'running' && options.force !== true && options.dryRun !== true) throw new RunStillRunningError(runId);
  if (options.nodeId !== undefined) await assertNodeInRun(db, runId, options.nodeId);
  await assertWorkspace(workspace);
  const files = createWorkspaceFiles(workspace);
  const restored: RevertedFile[] = [];
  const conflicted: RevertConflict[] = [];
  const unchanged: string[] = [];
  const targets = await revertTargets(db, runId, options.nodeId);
  for (const item of targets) {
    const current = await files.read(item.path);
    const step = revertStep({ target: item.target, changedTo: item.changedTo, current, force: options.force === true });
    if (step.action === 'unchanged') unchanged.push(item.path);
    else if (step.action === 'conflict') conflicted.push({ path: item.path, nodeId: item.nodeId, reason: step.reason, remedy: step.unrestorable === true ? await remedyWithoutForce(workspace, item.path) : 'force' });
    else if (options.dryRun === true) {
      restored.push({ path: item.path, action: actionOf(step), nodeId: item.nodeId, ...('overwrites' in step && step.overwrites === true ? { overwrote: true as const } : {}) });
    } else {
      let action: RevertAction;
      try {
        action = await applyStep(files, item.path, step);
      } catch (error) {
        if (!(error instanceof SnapshotPathThroughLinkError)) throw error;
        // A link on the path: no write goes through it, forced or not.
        conflicted.push({ path: item.path, nodeId: item.nodeId, reason: error.reason, remedy: 'none' });
        continue;
      }
      restored.push({ path: item.path, action, nodeId: item.nodeId, ...('overwrites' in step && step.overwrites === true ? { overwrote: true as const } : {}) });
      await options.log.append({
        type: 'file/reverted',
        payload: { path: item.path, node: item.nodeId, scope: options.nodeId === undefined ? 'run' : 'node', action, forced: options.force === true },
      });
    }
  }
  if (options.dryRun !== true && restored.length + conflicted.length + unchanged.length > 0) {
    await options.log.append({
      type: 'revert/finished',
      payload: {
        scope: options.nodeId === undefined ? 'run' : 'node',
        node: options.nodeId ?? null,
        nodes: [...new Set(targets.flatMap((item) => item.nodes))].sort(),
        reverted: restored.map((file) => file.path),
        unchanged,
        conflicts: conflicted.map((conflict) => conflict.path),
        unrestorable: conflicted.filter((conflict) => conflict.remedy !== 'force').map((conflict) => conflict.path),
        forced: options.force === true,
      },
    });
  }
  return { runId: runId, nodeId: options.nodeId ?? null, restored, conflicted, unchanged };
}

async function revertTargets(db: Kysely<Database>, runId: string, nodeId: string | undefined): Promise<RevertTarget[]> {
  const snapshots = await listSnapshots(db, runId, nodeId);
  if (nodeId !== undefined) return snapshots.map((snapshot) => ({ path: snapshot.path, nodeId, target: snapshot.before, changedTo: snapshot.after, nodes: [nodeId] }));
  return pathHistories(snapshots, await nodeStartSeqs(db, runId)).map((history) => {
    const first = history.snapshots[0];
    const last = history.snapshots[history.snapshots.length - 1]!;
    return { path: history.path, nodeId: first.nodeId, target: first.before, changedTo: last.after, nodes: history.snapshots.map((snapshot) => snapshot.nodeId) };
  });
}

/** A file `force` cannot put back: what else can, if anything. */
async function remedyWithoutForce(workspace: string, path: string): Promise<RevertRemedy> {
  return (await hasOtherCommittedCopy(workspace, path)) ? 'git' : 'none';
}

type WritingStep = Exclude<RevertStep, { action: 'unchanged' | 'conflict' }>;

async function applyStep(files: WorkspaceFiles, path: string, step: WritingStep): Promise<RevertAction> {
  if (step.action === 'delete') await files.remove(path);
  else if (step.action === 'relink') await files.write(path, linkStateOf(step.target));
  else await files.write(path, fileOf(step.bytes));
  return actionOf(step);
}

function actionOf(step: WritingStep): RevertAction {
  return step.action === 'delete' ? 'deleted' : step.action === 'patch' ? 'patched' : 'restored';
}
