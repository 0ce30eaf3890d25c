import { DAGENT_TEMP_FILE_GLOB } from '../snapshots/temp-file-name.js';
import type { GitObjects } from './git-objects.js';

/** A node's change, committed: `start` is the run-branch commit its workspace began from. */
export interface NodeCommit {
  readonly nodeId: string;
  readonly commit: string;
  readonly start: string;
  /** The paths the node changed, sorted. */
  readonly files: readonly string[];
}

/** What a node workspace needs from its run: git, and how to leave the worktree list. */
export interface NodeWorkspaceHost {
  readonly objects: GitObjects;
  /** A file of exclude patterns for the folders linked in read-only (they are not the node's change). */
  readonly excludesFile: string;
  /** Takes back a worktree its node is done with (kept for the run's next node, or deleted). */
  release(path: string): Promise<void>;
}

/**
 * One node attempt's own working copy: a git worktree of the run branch at `start`, so its tools,
 * commands and sandbox see only the run's merged results plus the node's own edits. Its change is
 * whatever differs from `start` when it ends (`commit`), whoever wrote it.
 */
export class NodeWorkspace {
  readonly nodeId: string;
  /** The worktree's folder (absolute): the node's workspace. */
  readonly path: string;
  readonly start: string;
  /**
   * A view of `start` the node shares with other nodes that only read (`RunWorkspaces.openReader`):
   * nothing in it is the node's change, and its index is never written (they would race on it).
   */
  readonly shared: boolean;
  readonly #host: NodeWorkspaceHost;

  constructor(host: NodeWorkspaceHost, nodeId: string, path: string, start: string, options: { readonly shared?: boolean } = {}) {
    this.#host = host;
    this.nodeId = nodeId;
    this.path = path;
    this.start = start;
    this.shared = options.shared ?? false;
  }

  /** The paths changed so far (staged into the worktree's own index), sorted. */
  async changedFiles(): Promise<string[]> {
    if (this.shared) return [];
    const tree = await this.#stage();
    return this.#host.objects.changedPaths(this.start, tree);
  }

  /**
   * Commits everything the node changed (ignored and linked folders, dagent's temporary files left
   * out); undefined when it changed nothing. `staged`: the tree of the worktree as it is, when the
   * caller knows it (a step checkpoint nothing ran after); else the worktree is staged.
   */
  async commit(message: string, staged?: string): Promise<NodeCommit | undefined> {
    if (this.shared) return undefined;
    const objects = this.#host.objects;
    const tree = staged ?? (await this.#stage());
    const startTree = await objects.treeOf(this.start);
    if (tree === startTree) return undefined;
    const [commit, files] = await Promise.all([objects.commitTree(tree, [this.start], message), objects.changedPaths(startTree, tree)]);
    return { nodeId: this.nodeId, commit, start: this.start, files };
  }

  /**
   * Commits the workspace as it is now on top of `parent` (a step checkpoint of the node's own line,
   * never merged): the commit a resumed attempt checks out again.
   */
  async checkpoint(parent: string, message: string): Promise<string> {
    const objects = this.#host.objects;
    return objects.commitTree(this.shared ? await objects.treeOf(this.start) : await this.#stage(), [parent], message);
  }

  /**
   * The node is done with its workspace: the run keeps the worktree for its next node (which gets
   * it reset: none of this node's files, tracked, untracked or ignored, go on), or deletes it.
   */
  async remove(): Promise<void> {
    await this.#host.release(this.path);
  }

  async #stage(): Promise<string> {
    const objects = this.#host.objects;
    await objects.inWorktree(this.path, ['-c', `core.excludesFile=${this.#host.excludesFile}`, 'add', '-A', '--', '.', `:(exclude,glob)${DAGENT_TEMP_FILE_GLOB}`]);
    return objects.inWorktree(this.path, ['write-tree']);
  }
}
