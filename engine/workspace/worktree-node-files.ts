import type { Kysely } from 'kysely';
import type { WriteScope } from '../agent/tool-runtime.js';
import type { Database } from '../db/database.js';
import { ISOLATED_PLAN_RULES, type PlanRules } from '../plan/plan-rules.js';
import { insertSnapshotIfAbsent, listSnapshots, recordSnapshotAfter } from '../snapshots/file-snapshot-rows.js';
import { createWriteSet, writeSetRefusal } from '../snapshots/file-write-set.js';
import { revertNodeChange } from '../snapshots/file-node-change.js';
import { createWorkspaceFiles } from '../snapshots/file-workspace.js';
import { runLog } from '../session/run-log.js';
import { revertOnRunBranch } from './run-branch-revert.js';
import { describeConflicts, type MergeConflict } from './merge-conflicts.js';
import type { NodeWorkspace } from './node-workspace.js';
import type { RunWorkspaces } from './run-workspaces.js';
import { deliverChange, type DeliveredFile } from './working-copy-delivery.js';

/** Where a node attempt's workspace is, as stored in its `node/snapshotted` payload. */
export interface WorktreeBoundary {
  readonly kind: 'worktree';
  readonly path: string;
  /** The run-branch commit the workspace began at. */
  readonly start: string;
}

export interface WorktreeEndOptions {
  readonly otherWrites?: readonly string[];
  /** Runs before the node's end is recorded (here: always, before anything else). */
  readonly beforeRecording?: () => Promise<void>;
  /** Merge the node's change (it succeeded); false: its workspace is dropped, nothing merged. */
  readonly merge?: boolean;
  /** The node's commit message: node id, attempt, title and instruction. */
  readonly message?: string;
  /** Changes beyond `writes` keep the node's change off the run branch (`overreach`): the plan's `strictWrites`. */
  readonly strictWrites?: boolean;
  /**
   * Nothing ran in the workspace since the node's last step checkpoint (no call, no hook): the
   * node's commit takes the checkpoint's tree instead of staging the worktree again.
   */
  readonly quietSinceCheckpoint?: boolean;
}

/** A step checkpoint of an isolated node: a commit of its workspace on the node's own line (never merged). */
export interface WorktreeCheckpoint {
  readonly kind: 'worktree-step';
  readonly commit: string;
  /** How many files differ from where the node began: what status and the dashboard show of a running node. */
  readonly changedFiles?: number;
}

/**
 * Where a resumed attempt's files go: a step checkpoint, the node's start, or as the stopped attempt
 * left them (its workspace, or, when that went with the run's stop, the checkpoint taken then).
 */
export type WorktreeResumeTarget = { readonly kind: 'checkpoint'; readonly checkpoint: unknown } | { readonly kind: 'start' } | { readonly kind: 'as-left'; readonly checkpoint?: unknown };

/** How a node attempt ended for its files. `merged`: its run-branch commit; `conflict`: why it cannot merge (the hunks). */
export interface WorktreeNodeEnd {
  readonly filesChanged: readonly string[];
  readonly strayChanges: readonly string[];
  readonly merged?: { readonly commit: string; readonly branch: string; readonly keptYours: readonly string[] };
  readonly conflict?: string;
  /** The conflicting files and hunks, when the change could not merge. */
  readonly conflicts?: readonly MergeConflict[];
  /** The change was not merged: it went beyond the node's writes and the plan's `strictWrites` forbids that. */
  readonly overreach?: boolean;
  /** The run branch, for what the log names. */
  readonly branch?: string;
}

export interface WorktreeNodeFilesOptions {
  readonly db: Kysely<Database>;
  readonly runId: string;
  readonly workspaces: RunWorkspaces;
  readonly now?: () => Date;
}

/**
 * The run controller's `NodeFiles` when nodes run isolated: each attempt in its own worktree
 * (`workspaceFor`), its change — everything that differs when it ends, whoever wrote it — committed
 * and merged onto the run branch, then brought into the user's working copy and recorded as the
 * node's file snapshots (so `diff --node` and `revert --node` show and undo exactly that change).
 */
export class WorktreeNodeFiles {
  readonly #options: WorktreeNodeFilesOptions;
  /** Each node in its own workspace: unordered nodes may write one file, their changes merged in plan order. */
  readonly planRules: PlanRules = ISOLATED_PLAN_RULES;
  readonly #open = new Map<string, NodeWorkspace>();
  /** Each open node's last step checkpoint: the parent of its next one. */
  readonly #lastCheckpoint = new Map<string, string>();

  constructor(options: WorktreeNodeFilesOptions) {
    this.#options = options;
  }

  get workspaces(): RunWorkspaces {
    return this.#options.workspaces;
  }

  /** Only the declared writes are the write tools'; nothing needs saving first: the workspace is the node's own. */
  writeScopeFor(_nodeId: string, writes: readonly string[]): WriteScope {
    const writeSet = createWriteSet(writes);
    return { check: (path) => writeSetRefusal(path, writeSet), beforeWrite: async () => undefined };
  }

  /**
   * `writes`: a dependency folder they reach into (`node_modules/…`) is the node's own writable
   * copy. `readsOnly`: the node cannot change a file, and shares a view of the run branch's tip.
   */
  async beginNode(nodeId: string, writes: readonly string[] = [], options: { readonly readsOnly?: boolean } = {}): Promise<WorktreeBoundary> {
    await this.#drop(nodeId);
    const workspaces = this.#options.workspaces;
    const workspace = options.readsOnly === true ? await workspaces.openReader(nodeId) : await workspaces.openNode(nodeId, writes);
    this.#open.set(nodeId, workspace);
    return { kind: 'worktree', path: workspace.path, start: workspace.start };
  }

  /**
   * A step checkpoint: the node's workspace as it is, committed on top of its previous checkpoint
   * (or the commit it began at) and kept reachable by `refs/dagent/<run>/steps/<node>`.
   */
  async checkpointNode(nodeId: string): Promise<WorktreeCheckpoint | undefined> {
    const workspace = this.#open.get(nodeId);
    if (workspace === undefined) return undefined;
    const parent = this.#lastCheckpoint.get(nodeId) ?? workspace.start;
    const commit = await workspace.checkpoint(parent, `dagent: ${nodeId} step checkpoint`);
    const [, changed] = await Promise.all([this.#keep(nodeId, commit), this.#options.workspaces.objects.changedPaths(workspace.start, commit)]);
    this.#lastCheckpoint.set(nodeId, commit);
    return { kind: 'worktree-step', commit, changedFiles: changed.length };
  }

  /**
   * A node attempt that goes on after its process or the run stopped: a new workspace whose files
   * are those of the step checkpoint (or the node's start), or, `as-left`, those of the stopped
   * attempt's workspace as it was left (when the run's stop removed it, the checkpoint its last
   * step took then); its change is still counted from where the node began. Returns the files
   * that differ from what a stopped attempt's workspace still there held (put back).
   */
  async resumeNode(nodeId: string, writes: readonly string[], boundary: unknown, target: WorktreeResumeTarget): Promise<{ restored: string[]; unrestorable: string[] }> {
    const began = boundary as WorktreeBoundary;
    await this.#drop(nodeId);
    const workspaces = this.#options.workspaces;
    const left = workspaces.leftNode(nodeId, began.path, began.start);
    const leftCommit = left === undefined ? undefined : await left.checkpoint(began.start, `dagent: ${nodeId} as its stopped attempt left it`);
    let checkout: string;
    if (target.kind === 'checkpoint') checkout = (target.checkpoint as WorktreeCheckpoint).commit;
    else if (target.kind === 'as-left' && leftCommit !== undefined) checkout = leftCommit;
    else if (target.kind === 'as-left' && target.checkpoint !== undefined) checkout = (target.checkpoint as WorktreeCheckpoint).commit;
    else checkout = began.start;
    if (left !== undefined) await workspaces.removeLeft(left);
    const workspace = await workspaces.reopenNode(nodeId, began.start, checkout, writes);
    this.#open.set(nodeId, workspace);
    this.#lastCheckpoint.set(nodeId, checkout);
    await this.#keep(nodeId, checkout);
    const restored = leftCommit === undefined ? [] : await workspaces.objects.changedPaths(leftCommit, checkout);
    return { restored, unrestorable: [] };
  }

  prepare(nodesAtOnce: number): void {
    void this.#options.workspaces.prepare(nodesAtOnce);
  }

  workspaceFor(nodeId: string): string | undefined {
    return this.#open.get(nodeId)?.path;
  }

  async endNode(nodeId: string, writes: readonly string[], _boundary: unknown, options: WorktreeEndOptions = {}): Promise<WorktreeNodeEnd> {
    await options.beforeRecording?.();
    const workspace = this.#open.get(nodeId);
    if (workspace === undefined) return { filesChanged: [], strayChanges: [] };
    try {
      const writeSet = createWriteSet(writes);
      if (options.merge !== true) {
        const files = await workspace.changedFiles();
        return { filesChanged: files, strayChanges: files.filter((path) => writeSetRefusal(path, writeSet) !== undefined), branch: this.#options.workspaces.branch };
      }
      const checkpoint = options.quietSinceCheckpoint === true ? this.#lastCheckpoint.get(nodeId) : undefined;
      const tree = checkpoint === undefined ? undefined : await this.#options.workspaces.objects.treeOf(checkpoint);
      const committed = await workspace.commit(options.message ?? `dagent: node ${nodeId}`, tree);
      if (committed === undefined) return { filesChanged: [], strayChanges: [], branch: this.#options.workspaces.branch };
      const strayChanges = committed.files.filter((path) => writeSetRefusal(path, writeSet) !== undefined);
      const branch = this.#options.workspaces.branch;
      if (options.strictWrites === true && strayChanges.length > 0) return { filesChanged: committed.files, strayChanges, overreach: true, branch };
      let keptYours: readonly string[] = [];
      const outcome = await this.#options.workspaces.merge(committed, options.message ?? `dagent: node ${nodeId}`, async (merged) => {
        const delivery = await deliverChange(this.#options.workspaces.objects, merged.parent, merged.commit, merged.files);
        await this.#record(nodeId, delivery.files);
        keptYours = delivery.keptYours;
      });
      if (outcome.status === 'conflict') return { filesChanged: committed.files, strayChanges, conflict: describeConflicts(nodeId, outcome.conflicts), conflicts: outcome.conflicts, branch };
      if (outcome.status === 'unchanged') return { filesChanged: committed.files, strayChanges, branch };
      return { filesChanged: outcome.files, strayChanges, merged: { commit: outcome.commit, branch, keptYours }, branch };
    } finally {
      // Its worktree goes back to the run's spares on its own: the node's end does not wait for the move.
      void this.#drop(nodeId).catch(() => undefined);
    }
  }

  /**
   * A succeeded node that runs again (its plan edited): its change leaves the working copy, as
   * under shared isolation (kept where edited since in the same lines), and its commit leaves the
   * run branch, so its next workspace starts without the change (else an edit node finds its edit
   * already made).
   */
  async revertNode(nodeId: string): Promise<{ reverted: string[]; conflicts: string[] }> {
    const { db, runId, workspaces } = this.#options;
    const undone = await revertNodeChange(db, runId, nodeId, createWorkspaceFiles(workspaces.repo));
    const merged = (await runLog(db, runId).read({ nodeId, types: ['node/merged'] })).at(-1);
    if (merged?.type === 'node/merged') {
      workspaces.forgetTip();
      await revertOnRunBranch(workspaces.repo, runId, [{ nodeId, commit: merged.payload.commit }], 'it runs again');
      workspaces.forgetTip();
    }
    return undone;
  }

  async restoreNode(nodeId: string): Promise<readonly string[]> {
    await this.#drop(nodeId);
    return [];
  }

  /** Every workspace goes with the run's worktrees folder: none is kept for a next node. */
  async close(): Promise<void> {
    this.#open.clear();
    this.#lastCheckpoint.clear();
    await this.#options.workspaces.close();
  }

  /** Keeps a node's step checkpoints reachable (git's garbage collection leaves them). */
  async #keep(nodeId: string, commit: string): Promise<void> {
    await this.#options.workspaces.objects.moveRef(`refs/dagent/${this.#options.runId}/steps/${nodeId}`, commit, 'anywhere');
  }

  async #drop(nodeId: string): Promise<void> {
    const workspace = this.#open.get(nodeId);
    this.#lastCheckpoint.delete(nodeId);
    if (workspace === undefined) return;
    this.#open.delete(nodeId);
    await workspace.remove();
  }

  /** The node's file snapshots: each file before and after its merge, in merge order (diff and revert read them). */
  async #record(nodeId: string, files: readonly DeliveredFile[]): Promise<void> {
    const { db, runId } = this.#options;
    const createdAt = (this.#options.now?.() ?? new Date()).toISOString();
    for (const file of files) await insertSnapshotIfAbsent(db, { runId, nodeId, path: file.path }, file.before, createdAt);
    const stored = new Map((await listSnapshots(db, runId, nodeId)).map((snapshot) => [snapshot.path, snapshot]));
    for (const file of files) {
      const snapshot = stored.get(file.path);
      if (snapshot !== undefined) await recordSnapshotAfter(db, snapshot, file.after);
    }
  }
}
