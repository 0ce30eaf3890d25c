import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { WriteScope } from '../agent/tool-runtime.js';
import type { Database } from '../db/database.js';
import { splitNodeChanges } from './file-boundary-changes.js';
import { GitWorkingTree, type GitRunner } from './file-git.js';
import { nodeBoundarySchema, parseNodeBoundary, type NodeBoundary } from './file-node-boundary.js';
import { nodeInputHashes, putBackFiles, revertNodeChange } from './file-node-change.js';
import { scanWriteSet } from './file-scan.js';
import { CommandWindows } from './file-command-windows.js';
import { scanChangesSince, scanWindow, type BoundaryChanges, type ScanHashes, type WindowScan } from './file-scan-changes.js';
import { FileSnapshotGitError, SnapshotPathThroughLinkError } from './file-snapshot-errors.js';
import { deleteNodeScan, saveNodeScan } from './node-scan-rows.js';
import { clearSnapshotsAfter, deleteSnapshot, insertSnapshotIfAbsent, listSnapshots, recordSnapshotAfter } from './file-snapshot-rows.js';
import { ABSENT_FILE, sameContent, stateHash, type FileState } from './file-state.js';
import { GitChangeTracker, stateOfEntry } from './git-change-tracker.js';
import { createWorkspaceFiles, existingWriteFolders, type WorkspaceFiles } from './file-workspace.js';
import { removeTempLeftovers } from './file-temp-leftovers.js';
import { createWriteSet, writeSetRefusal, type WriteSet } from './file-write-set.js';
import type { EndNodeOptions, NodeEnd, NodeRestore, StepFilesTarget } from './node-file-outcomes.js';

/** Without git, a node's boundary keeps the content of write-set files up to these sizes, so command-made changes can be reverted. */
export const MAX_EAGER_SNAPSHOT_FILE_BYTES = 1024 * 1024;
export const MAX_EAGER_SNAPSHOT_TOTAL_BYTES = 16 * 1024 * 1024;
const EAGER_LIMITS = { file: MAX_EAGER_SNAPSHOT_FILE_BYTES, total: MAX_EAGER_SNAPSHOT_TOTAL_BYTES };

export interface FileSnapshotsOptions {
  readonly db: Kysely<Database>;
  readonly runId: string;
  /** The workspace root (absolute). */
  readonly workspace: string;
  readonly now?: () => Date;
  /** Runs git commands; the `git` on PATH by default; `false` never uses git. */
  readonly git?: GitRunner | false;
  /**
   * In a git workspace, watch the workspace (one watch per folder, set when the first node begins)
   * so a boundary costs what changed, not what the repository holds. Default true; false scans the
   * whole working copy at every boundary. `close()` ends the watch.
   */
  readonly watch?: boolean;
  /**
   * In a git workspace, store the contents of the write set's files git ignores when a node begins
   * (default true), so a command's change to them can be reverted. False for a write set as wide
   * as the workspace (a react run's `**`), which would copy `node_modules`: such changes go unseen.
   */
  readonly snapshotIgnored?: boolean;
  /** Without git, a node's begin reads nothing (default false); its first command, hook or MCP tool scans (`beforeCommand`): one that ran none reads only what its tools wrote. For a react run's `**`. */
  readonly deferScan?: boolean;
  /**
   * Without git, scan the whole workspace at a node's first command, hook or MCP tool and again at
   * its end (`CommandWindows`), so what its commands change outside its writes is seen (default
   * true). False for a worker whose workspace other processes' nodes change at the same time.
   */
  readonly commandWindows?: boolean;
}

/**
 * The file snapshots of one run (SPEC §2.4, §4): before a node first changes a file its content
 * is stored, and at the node's end its changes are found, also those made by commands, so the run
 * can be diffed and reverted.
 *
 * The RunController, per node attempt: `beginNode` before the node starts (put the boundary in
 * the `node/started` payload); `writeScopeFor` for the node's tools; `endNode` when the attempt
 * ends, however it ended; before a retry or after a crash, `restoreNode` with the boundary of the
 * attempt that ran, then `beginNode` again.
 */
export class FileSnapshots {
  readonly #db: Kysely<Database>;
  readonly #runId: string;
  readonly #files: WorkspaceFiles;
  readonly #now: () => Date;
  readonly #gitRunner: GitRunner | false | undefined;
  readonly #watch: boolean;
  readonly #snapshotIgnored: boolean;
  readonly #deferScan: boolean;
  readonly #windows: CommandWindows | undefined;
  #git: Promise<GitWorkingTree | undefined> | undefined;
  #tracker: Promise<GitChangeTracker | undefined> | undefined;
  #closed = false;

  constructor(options: FileSnapshotsOptions) {
    this.#db = options.db;
    this.#runId = options.runId;
    this.#files = createWorkspaceFiles(options.workspace);
    this.#now = options.now ?? (() => new Date());
    this.#gitRunner = options.git;
    this.#watch = options.watch ?? true;
    this.#snapshotIgnored = options.snapshotIgnored ?? true;
    this.#deferScan = options.deferScan === true;
    this.#windows = this.#deferScan || options.commandWindows !== false ? new CommandWindows() : undefined;
  }

  /**
   * The write scope of one node attempt: `check` refuses paths outside the node's `writes`;
   * `beforeWrite` stores the file's content the first time the node touches the path.
   */
  writeScopeFor(nodeId: string, writes: readonly string[]): WriteScope {
    const writeSet = createWriteSet(writes);
    const snapshotted = new Map<string, Promise<void>>();
    return {
      check: (path) => writeSetRefusal(path, writeSet),
      beforeWrite: (path) => {
        this.#windows?.wrote(nodeId, path);
        let pending = snapshotted.get(path);
        if (pending === undefined) {
          pending = this.#snapshotBefore(nodeId, path);
          snapshotted.set(path, pending);
          void pending.catch(() => snapshotted.delete(path));
        }
        return pending;
      },
      ...(this.#windows === undefined ? {} : { beforeCommand: () => this.#windows!.openOnce(nodeId, () => this.#openWindow(nodeId, writes, writeSet)) }),
    };
  }

  /**
   * Marks where a node attempt begins. In a git workspace, also stores the contents of files in
   * the write set that git ignores (the boundary leaves them out); without git, those of every
   * file in the write set (within the size limits), so command-made changes can be undone: at its
   * first command with `deferScan`.
   */
  async beginNode(nodeId: string, writes: readonly string[]): Promise<NodeBoundary> {
    const git = await this.#gitTree();
    if (git !== undefined) {
      try {
        const boundary = await this.#gitBoundary(git, writes);
        if (this.#snapshotIgnored) await this.#storeEagerSnapshots(nodeId, await this.#ignoredInWrites(git, writes));
        return { ...boundary, folders: await existingWriteFolders(this.#files.root, writes) };
      } catch (error) {
        if (!(error instanceof FileSnapshotGitError)) throw error;
      }
    }
    const folders = await existingWriteFolders(this.#files.root, writes);
    this.#windows?.begin(nodeId);
    if (!this.#deferScan) return { kind: 'scan', writes: [...writes], files: await this.#scanAhead(nodeId, writes), folders };
    return { kind: 'scan', writes: [...writes], files: {}, folders, deferred: true };
  }

  /**
   * A node's command window opens: the whole workspace scanned (`scanWindow`). With `deferScan` (a react run) the
   * scan is also stored (`node_scans`) before the command that asked for it runs, and forgotten once
   * the node's end is recorded: a process killed mid-command leaves it, for `recoverCrashedScans` to
   * find what that command changed.
   */
  async #openWindow(nodeId: string, writes: readonly string[], writeSet: WriteSet): Promise<WindowScan> {
    const scan = await scanWindow(this.#files, writeSet, EAGER_LIMITS, (path) => this.#snapshotBefore(nodeId, path));
    if (this.#deferScan) await saveNodeScan(this.#db, this.#runId, { nodeId, writes, files: scan.hashes }, this.#now().toISOString());
    return scan;
  }

  /** Hashes the write set's files and stores their contents within the eager limits: a scan boundary's files. */
  async #scanAhead(nodeId: string, writes: readonly string[]): Promise<ScanHashes> {
    const scan = await scanWriteSet(this.#files.root, createWriteSet(writes));
    await this.#storeEagerSnapshots(nodeId, [...scan].filter(([, file]) => file.size <= MAX_EAGER_SNAPSHOT_FILE_BYTES).map(([path, file]) => ({ path, size: file.size })));
    return Object.fromEntries([...scan].map(([path, file]) => [path, file.hash]));
  }

  /**
   * A step checkpoint: the node's files as they are now, as a boundary (in a git workspace a tree
   * that holds their content, so a resumed node can go back to it; without git, their hashes only).
   * Unlike `beginNode` it stores no snapshot: the node's contents before it began stay as they are.
   */
  async checkpointNode(_nodeId: string, writes: readonly string[]): Promise<NodeBoundary> {
    const git = await this.#gitTree();
    if (git !== undefined) {
      try {
        return { ...(await this.#gitBoundary(git, writes)), folders: await existingWriteFolders(this.#files.root, writes) };
      } catch (error) {
        if (!(error instanceof FileSnapshotGitError)) throw error;
      }
    }
    const scan = await scanWriteSet(this.#files.root, createWriteSet(writes));
    return { kind: 'scan', writes: [...writes], files: Object.fromEntries([...scan].map(([path, file]) => [path, file.hash])), folders: await existingWriteFolders(this.#files.root, writes) };
  }

  /**
   * Puts the node's files back to a step checkpoint (or, `start`, to where the node began) for an
   * attempt that goes on after its process or the run stopped; `as-left` changes nothing (whatever
   * checkpoint it names). The node's stored contents before it began are kept (its diff still counts
   * from there). A file whose content at the checkpoint is not held (a workspace without git) is
   * named in `unrestorable`, left as it is.
   */
  async resumeNode(nodeId: string, writes: readonly string[], boundaryValue: unknown, target: StepFilesTarget): Promise<NodeRestore> {
    // Without git, the attempt's command window opens afresh: what its commands change from here on is seen.
    if (nodeBoundarySchema.safeParse(boundaryValue).data?.kind === 'scan') this.#windows?.begin(nodeId);
    if (target.kind === 'as-left') return { restored: [], unrestorable: [] };
    const boundary = parseNodeBoundary(target.kind === 'checkpoint' ? target.checkpoint : boundaryValue);
    const before = new Map<string, FileState>();
    for (const snapshot of await listSnapshots(this.#db, this.#runId, nodeId)) before.set(snapshot.path, snapshot.before);
    const changes = await this.#changesSince(boundary, writes, nodeId);
    const writeSet = createWriteSet(boundary.writes);
    const targets = new Map<string, FileState>();
    for (const path of changes.paths) {
      if (!writeSet.covers(path)) continue;
      const start = before.get(path);
      if (target.kind === 'start' && start !== undefined) {
        targets.set(path, start);
        continue;
      }
      // A checkpoint that holds only a file's hash (a workspace without git) gets its content from
      // the node's start when the file was then as it is at the checkpoint.
      const state = await changes.beforeOf(path);
      targets.set(path, state.kind === 'unrecorded' && start !== undefined && start.kind !== 'absent' && start.hash === state.hash ? start : state);
    }
    const keep = new Set(boundary.folders ?? []);
    const restore = await putBackFiles(this.#files, targets, keep);
    await removeTempLeftovers(this.#files.root, boundary.writes);
    return restore;
  }

  /**
   * Finds the node's changes since `boundary` (tool writes and command-made changes alike),
   * stores missing before-contents and every changed file's content after the node, and drops
   * snapshots of files that ended as they began. Changes outside the node's writes are recorded
   * too (and named in `strayChanges`), except those another node's writes cover (in a git
   * workspace) or its tools wrote in the node's command window (without git): those are that
   * sibling's. `boundary` is what `beginNode` returned, as it comes back from the log
   * (validated: `InvalidNodeBoundaryError`).
   */
  async endNode(nodeId: string, writes: readonly string[], boundary: unknown, options: EndNodeOptions = {}): Promise<NodeEnd> {
    const window = this.#windows?.held(nodeId);
    const changes = await this.#changesSince(parseNodeBoundary(boundary), writes, nodeId, window);
    const sharing = await this.#windows?.close(nodeId, async (path) => stateHash(await this.#files.read(path).catch(() => ABSENT_FILE)));
    // No write set nor window: no snapshot taken before a write or at the boundary; a first attempt: none left by an earlier one.
    if (options.firstAttempt === true && writes.length === 0 && window === undefined && changes.paths.length === 0) return { filesChanged: [], strayChanges: [] };
    const writeSet = createWriteSet(writes);
    const { attributed, stray, leftOut } = splitNodeChanges(changes.paths, writeSet, sharing, options.otherWrites);
    // A node with a write set or changes all but always records its end: the check goes beside the read below, not after it.
    const checking = writes.length > 0 || changes.paths.length > 0 ? options.beforeRecording?.() : undefined;
    checking?.catch(() => undefined);
    const recorded = await listSnapshots(this.#db, this.#runId, nodeId);
    const known = new Set(recorded.map((snapshot) => snapshot.path));
    const unknown = [...attributed, ...stray].filter((path) => !known.has(path));
    if (unknown.length > 0 || recorded.length > 0) await (checking ?? options.beforeRecording?.());
    for (const path of unknown) await insertSnapshotIfAbsent(this.#db, { runId: this.#runId, nodeId, path }, await changes.beforeOf(path), this.#timestamp());
    const filesChanged: string[] = [];
    const changed = new Set(changes.paths);
    // Read again only when rows were added: most nodes end with the snapshots they had.
    for (const snapshot of unknown.length > 0 ? await listSnapshots(this.#db, this.#runId, nodeId) : recorded) {
      // A path its window scan stored that did not change, or that is another node's, is not the node's change.
      const current = leftOut.has(snapshot.path) || (sharing !== undefined && !changed.has(snapshot.path) && !writeSet.covers(snapshot.path)) ? snapshot.before : await this.#files.read(snapshot.path);
      if (sameContent(snapshot.before, current)) {
        await deleteSnapshot(this.#db, snapshot);
      } else {
        await recordSnapshotAfter(this.#db, snapshot, current);
        filesChanged.push(snapshot.path);
      }
    }
    // A window's scan kept for a crash (`deferScan`) is no longer needed once the node's end is recorded.
    if (this.#deferScan && window !== undefined) await deleteNodeScan(this.#db, this.#runId, nodeId);
    filesChanged.sort();
    const strayChanges = filesChanged.filter((path) => !writeSet.covers(path));
    return { filesChanged, strayChanges, ...(strayChanges.length > 0 && (sharing?.overlapped.length ?? 0) > 0 ? { overlapped: sharing!.overlapped } : {}) };
  }

  /**
   * Puts the node's files back to their content before the node (deleting files it created), for
   * a node that restarts from its beginning. With the boundary of the attempt that ran, changes
   * no snapshot recorded yet (a crash before `endNode`) are found and undone too. Returns the
   * restored paths; `restoreNodeFiles` also names the files it could not restore.
   */
  async restoreNode(nodeId: string, boundary?: unknown): Promise<readonly string[]> {
    return (await this.restoreNodeFiles(nodeId, boundary)).restored;
  }

  /** `restoreNode`, with the files it could not restore (content not recorded, or a link on the path), left as they are. */
  async restoreNodeFiles(nodeId: string, boundaryValue?: unknown): Promise<NodeRestore> {
    const boundary = boundaryValue === undefined || boundaryValue === null ? undefined : parseNodeBoundary(boundaryValue);
    const targets = new Map<string, FileState>();
    for (const snapshot of await listSnapshots(this.#db, this.#runId, nodeId)) targets.set(snapshot.path, snapshot.before);
    if (boundary !== undefined) {
      const changes = await this.#changesSince(boundary, boundary.writes, nodeId);
      const writeSet = createWriteSet(boundary.writes);
      for (const path of changes.paths) if (writeSet.covers(path) && !targets.has(path)) targets.set(path, await changes.beforeOf(path));
    }
    const keep = new Set(boundary?.folders ?? []);
    const restore = await putBackFiles(this.#files, targets, keep);
    if (boundary !== undefined) await removeTempLeftovers(this.#files.root, boundary.writes);
    await clearSnapshotsAfter(this.#db, this.#runId, nodeId);
    return restore;
  }

  /** What the node read, as content hashes at its beginning (`NodeFiles.inputHashes`). */
  inputHashes(nodeId: string, paths: readonly string[]): Promise<Record<string, string>> {
    return nodeInputHashes(this.#db, this.#runId, nodeId, this.#files, paths);
  }

  /** Undoes the node's recorded change, keeping later edits, and forgets it (`NodeFiles.revertNode`). */
  revertNode(nodeId: string): Promise<{ reverted: string[]; conflicts: string[] }> {
    return revertNodeChange(this.#db, this.#runId, nodeId, this.#files);
  }

  /** Ends the workspace watch (if one was started). The snapshots still work after, by scanning. */
  async close(): Promise<void> {
    this.#closed = true;
    const tracker = await this.#tracker?.catch(() => undefined);
    tracker?.close();
    (await this.#git)?.close();
  }

  async #snapshotBefore(nodeId: string, path: string): Promise<void> {
    const before = await this.#files.read(path);
    await insertSnapshotIfAbsent(this.#db, { runId: this.#runId, nodeId, path }, before, this.#timestamp());
  }

  async #storeEagerSnapshots(nodeId: string, files: readonly { readonly path: string; readonly size: number }[]): Promise<void> {
    let budget = MAX_EAGER_SNAPSHOT_TOTAL_BYTES;
    for (const { path, size } of files) {
      if (size > MAX_EAGER_SNAPSHOT_FILE_BYTES || size > budget) continue;
      budget -= size;
      await this.#snapshotBefore(nodeId, path);
    }
  }

  /** The write set's files that git ignores, with their sizes: a git boundary does not hold them. */
  async #ignoredInWrites(git: GitWorkingTree, writes: readonly string[]): Promise<{ path: string; size: number }[]> {
    const writeSet = createWriteSet(writes);
    const paths = (await git.ignoredFiles(writes)).filter((path) => writeSet.covers(path));
    const sized = await Promise.all(paths.map(async (path) => ({ path, size: (await lstat(join(this.#files.root, path)).catch(() => undefined))?.size ?? -1 })));
    return sized.filter((file) => file.size >= 0);
  }

  async #gitBoundary(git: GitWorkingTree, writes: readonly string[]): Promise<NodeBoundary> {
    const tracker = await this.#liveTracker(git);
    if (tracker !== undefined) return tracker.boundary(writes);
    return { kind: 'git', tree: await git.writeTree(), writes: [...writes] };
  }

  /** The run's change tracker, started on first use; undefined when watching is off or failed. */
  async #liveTracker(git: GitWorkingTree): Promise<GitChangeTracker | undefined> {
    if (!this.#watch || this.#closed) return undefined;
    this.#tracker ??= GitChangeTracker.start(git).catch(() => undefined);
    const tracker = await this.#tracker;
    return tracker?.broken === undefined ? tracker : undefined;
  }

  /** `window`: the scan the node's command window opened with (`endNode`): then the whole workspace is compared. */
  async #changesSince(boundary: NodeBoundary, writes: readonly string[], nodeId: string, window?: Promise<WindowScan>): Promise<BoundaryChanges> {
    if (boundary.kind === 'git' || boundary.kind === 'watch') {
      const git = await this.#gitTree();
      if (git === undefined) throw new FileSnapshotGitError('write-tree', `the node began in a git workspace, but ${this.#files.root} is no longer one`);
      const tracker = boundary.kind === 'watch' ? await this.#liveTracker(git) : undefined;
      if (tracker !== undefined && tracker.owns(boundary)) {
        const changed = await tracker.changesSince(boundary);
        return { paths: [...changed.keys()], beforeOf: async (path) => stateOfEntry(git, path, changed.get(path) ?? { entry: null, raw: true }) };
      }
      // No live watch from that boundary (another process made it, or the watch broke): compare whole trees.
      const from = boundary.kind === 'git' ? boundary.tree : await git.treeWith(boundary.base, boundary.overlay);
      const changes = await git.diffTrees(from, await git.writeTree());
      const before = new Map(changes.map((change) => [change.path, change]));
      return {
        paths: changes.map((change) => change.path),
        beforeOf: async (path) => {
          const change = before.get(path);
          const entry = change?.oldBlob == null || change.oldMode === null ? null : { mode: change.oldMode, blob: change.oldBlob };
          const raw = boundary.kind === 'watch' && Object.hasOwn(boundary.overlay, path);
          return stateOfEntry(git, path, { entry, raw });
        },
      };
    }
    return scanChangesSince(this.#files.root, boundary, writes, window ?? (boundary.deferred === true ? this.#windows?.held(nodeId) : undefined));
  }

  #gitTree(): Promise<GitWorkingTree | undefined> {
    if (this.#git === undefined) {
      this.#git = this.#gitRunner === false ? Promise.resolve(undefined) : GitWorkingTree.detect(this.#files.root, this.#gitRunner);
    }
    return this.#git;
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }
}

