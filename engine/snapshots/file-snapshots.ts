import type { Kysely } from 'kysely';
import type { WriteScope } from '../agent/tool-runtime.js';
import type { Database } from '../db/database.js';
import { attributeChanges, scanChanges } from './file-boundary-changes.js';
import { GitWorkingTree, type GitRunner } from './file-git.js';
import { parseNodeBoundary, type NodeBoundary } from './file-node-boundary.js';
import { scanWriteSet, type ScannedFile } from './file-scan.js';
import { FileSnapshotGitError } from './file-snapshot-errors.js';
import { clearSnapshotsAfter, deleteSnapshot, insertSnapshotIfAbsent, listSnapshots, recordSnapshotAfter } from './file-snapshot-rows.js';
import { ABSENT_FILE, fileStateOf, sameContent, type FileState } from './file-state.js';
import { createWorkspaceFiles, type WorkspaceFiles } from './file-workspace.js';
import { removeTempLeftovers } from './file-temp-leftovers.js';
import { createWriteSet, writeSetRefusal, type WriteSet } from './file-write-set.js';

/** Without git, a node's boundary keeps the content of write-set files up to these sizes, so command-made changes can be reverted. */
export const MAX_EAGER_SNAPSHOT_FILE_BYTES = 1024 * 1024;
export const MAX_EAGER_SNAPSHOT_TOTAL_BYTES = 16 * 1024 * 1024;

export interface FileSnapshotsOptions {
  readonly db: Kysely<Database>;
  readonly runId: string;
  /** The workspace root (absolute). */
  readonly workspace: string;
  readonly now?: () => Date;
  /** Runs git commands; the `git` on PATH by default; `false` never uses git. */
  readonly git?: GitRunner | false;
}

export interface NodeEnd {
  /** The node's files whose content differs from before the node, sorted. */
  readonly filesChanged: readonly string[];
  /** Changes seen during the node that no write set covers (git workspaces only), sorted. */
  readonly strayChanges: readonly string[];
}

export interface NodeRestore {
  /** Files put back to their content before the node (created files deleted). */
  readonly restored: readonly string[];
  /** Files whose content before the node was not recorded, left as they are. */
  readonly unrestorable: readonly string[];
}

export interface EndNodeOptions {
  /** The write globs of the run's other nodes: their changes are theirs, not stray. */
  readonly otherWrites?: readonly string[];
}

/** The changes since a boundary, and how to get a changed file's content at the boundary. */
interface BoundaryChanges {
  readonly paths: readonly string[];
  beforeOf(path: string): Promise<FileState>;
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
  #git: Promise<GitWorkingTree | undefined> | undefined;

  constructor(options: FileSnapshotsOptions) {
    this.#db = options.db;
    this.#runId = options.runId;
    this.#files = createWorkspaceFiles(options.workspace);
    this.#now = options.now ?? (() => new Date());
    this.#gitRunner = options.git;
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
        let pending = snapshotted.get(path);
        if (pending === undefined) {
          pending = this.#snapshotBefore(nodeId, path);
          snapshotted.set(path, pending);
          void pending.catch(() => snapshotted.delete(path));
        }
        return pending;
      },
    };
  }

  /** Marks where a node attempt begins. Without git, also stores the write set's current contents (within the size limits). */
  async beginNode(nodeId: string, writes: readonly string[]): Promise<NodeBoundary> {
    const git = await this.#gitTree();
    if (git !== undefined) {
      try {
        return { kind: 'git', tree: await git.writeTree(), writes: [...writes] };
      } catch (error) {
        if (!(error instanceof FileSnapshotGitError)) throw error;
      }
    }
    const scan = await scanWriteSet(this.#files.root, createWriteSet(writes));
    await this.#storeEagerSnapshots(nodeId, scan);
    return { kind: 'scan', writes: [...writes], files: Object.fromEntries([...scan].map(([path, file]) => [path, file.hash])) };
  }

  /**
   * Finds the node's changes since `boundary` (tool writes and command-made changes alike),
   * stores missing before-contents and every changed file's content after the node, and drops
   * snapshots of files that ended as they began. `boundary` is what `beginNode` returned, as it
   * comes back from the log (validated: `InvalidNodeBoundaryError`).
   */
  async endNode(nodeId: string, writes: readonly string[], boundary: unknown, options: EndNodeOptions = {}): Promise<NodeEnd> {
    const changes = await this.#changesSince(parseNodeBoundary(boundary), writes);
    const otherWrites = options.otherWrites === undefined ? undefined : createWriteSet(options.otherWrites);
    const { attributed, stray } = attributeChanges(changes.paths, createWriteSet(writes), otherWrites);
    const known = new Set((await listSnapshots(this.#db, this.#runId, nodeId)).map((snapshot) => snapshot.path));
    for (const path of attributed) {
      if (!known.has(path)) await insertSnapshotIfAbsent(this.#db, this.#key(nodeId, path), await changes.beforeOf(path), this.#timestamp());
    }
    const filesChanged: string[] = [];
    for (const snapshot of await listSnapshots(this.#db, this.#runId, nodeId)) {
      const current = fileStateOf(await this.#files.read(snapshot.path));
      if (sameContent(snapshot.before, current)) {
        await deleteSnapshot(this.#db, snapshot);
      } else {
        await recordSnapshotAfter(this.#db, snapshot, current);
        filesChanged.push(snapshot.path);
      }
    }
    return { filesChanged: filesChanged.sort(), strayChanges: stray };
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

  /** `restoreNode`, with the files whose content before the node was not recorded (left as they are). */
  async restoreNodeFiles(nodeId: string, boundaryValue?: unknown): Promise<NodeRestore> {
    const boundary = boundaryValue === undefined || boundaryValue === null ? undefined : parseNodeBoundary(boundaryValue);
    const targets = new Map<string, FileState>();
    for (const snapshot of await listSnapshots(this.#db, this.#runId, nodeId)) targets.set(snapshot.path, snapshot.before);
    if (boundary !== undefined) {
      const changes = await this.#changesSince(boundary, boundary.writes);
      const writeSet = createWriteSet(boundary.writes);
      for (const path of changes.paths) if (writeSet.covers(path) && !targets.has(path)) targets.set(path, await changes.beforeOf(path));
    }
    const restored: string[] = [];
    const unrestorable: string[] = [];
    for (const [path, target] of [...targets].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const current = fileStateOf(await this.#files.read(path));
      if (sameContent(target, current)) continue;
      if (target.kind === 'unrecorded') {
        unrestorable.push(path);
      } else {
        if (target.kind === 'absent') await this.#files.remove(path);
        else await this.#files.write(path, target.bytes);
        restored.push(path);
      }
    }
    if (boundary !== undefined) await removeTempLeftovers(this.#files.root, boundary.writes);
    await clearSnapshotsAfter(this.#db, this.#runId, nodeId);
    return { restored, unrestorable };
  }

  async #snapshotBefore(nodeId: string, path: string): Promise<void> {
    const before = fileStateOf(await this.#files.read(path));
    await insertSnapshotIfAbsent(this.#db, this.#key(nodeId, path), before, this.#timestamp());
  }

  async #storeEagerSnapshots(nodeId: string, scan: ReadonlyMap<string, ScannedFile>): Promise<void> {
    let budget = MAX_EAGER_SNAPSHOT_TOTAL_BYTES;
    for (const [path, file] of scan) {
      if (file.size > MAX_EAGER_SNAPSHOT_FILE_BYTES || file.size > budget) continue;
      budget -= file.size;
      await this.#snapshotBefore(nodeId, path);
    }
  }

  async #changesSince(boundary: NodeBoundary, writes: readonly string[]): Promise<BoundaryChanges> {
    if (boundary.kind === 'git') {
      const git = await this.#gitTree();
      if (git === undefined) throw new FileSnapshotGitError('write-tree', `the node began in a git workspace, but ${this.#files.root} is no longer one`);
      const changes = await git.diffTrees(boundary.tree, await git.writeTree());
      const oldBlobs = new Map(changes.map((change) => [change.path, change.oldBlob]));
      return {
        paths: changes.map((change) => change.path),
        beforeOf: async (path) => {
          const blob = oldBlobs.get(path) ?? null;
          return blob === null ? ABSENT_FILE : fileStateOf(await git.readBlob(blob, path));
        },
      };
    }
    const writeSet: WriteSet = createWriteSet([...new Set([...boundary.writes, ...writes])]);
    const now = await scanWriteSet(this.#files.root, writeSet);
    return {
      paths: scanChanges(boundary.files, now),
      beforeOf: async (path) => {
        const hash = boundary.files[path];
        return hash === undefined ? ABSENT_FILE : { kind: 'unrecorded', hash };
      },
    };
  }

  #gitTree(): Promise<GitWorkingTree | undefined> {
    if (this.#git === undefined) {
      this.#git = this.#gitRunner === false ? Promise.resolve(undefined) : GitWorkingTree.detect(this.#files.root, this.#gitRunner);
    }
    return this.#git;
  }

  #key(nodeId: string, path: string): { runId: string; nodeId: string; path: string } {
    return { runId: this.#runId, nodeId, path };
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }
}
