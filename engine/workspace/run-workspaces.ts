import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runGit, type GitRunner } from '../snapshots/file-git.js';
import { GitObjects } from './git-objects.js';
import { LINKED_FOLDERS_FILE, copyFolder, ignoredFolders, linkFolder, writableFolders } from './linked-folders.js';
import { conflictsIn, type MergeOutcome } from './merge-conflicts.js';
import { NodeWorkspace, type NodeCommit, type NodeWorkspaceHost } from './node-workspace.js';
import { SerialLock } from './serial-lock.js';
import { startingCommit } from './starting-commit.js';
import { checkoutDetached, spareOf, worktreeGitFile, type Spare } from './worktree-reuse.js';
import { WorktreesAhead } from './worktrees-ahead.js';

export interface RunWorkspacesOptions {
  /** The user's workspace: the top of a git repository. */
  readonly repo: string;
  readonly runId: string;
  readonly git?: GitRunner;
  /**
   * Make the view of the branch's tip that nodes which only read share while the workspaces open,
   * not when the first such node starts (a run's first stage is often reads).
   */
  readonly prepareView?: boolean;
}

/** A worktree the nodes that only read share, at one commit of the run branch. */
interface SharedView {
  readonly commit: string;
  /** The worktree's folder, once it is ready. */
  readonly ready: Promise<string>;
  path?: string;
  readers: number;
}

/** The run branch's name for a run. */
export function runBranch(runId: string): string {
  return `dagent/${runId}`;
}

/**
 * The workspaces of one run in a git repository. The run branch `dagent/<run>` starts at the base
 * (HEAD, or a commit on it holding the user's uncommitted changes); each node attempt gets its own
 * worktree of the branch (`openNode`), and its change, committed (`NodeWorkspace.commit`), is
 * merged three-way onto the branch in the order nodes finish (`merge`): one commit per node.
 * Worktrees are added one at a time (git's own lock files never race); the checkouts run side by
 * side. Installed dependencies git ignores (node_modules) are linked in, not copied. A node's
 * worktree, once it is done with (`NodeWorkspace.remove`), is kept for the run's next node, which
 * gets it brought to its commit (only the files that differ are written): checking out and
 * deleting a whole repository per node is what costs. Worktrees are named `wt-<id>`, after no
 * node (the folder a node worked in is in its boundary, `node/snapshotted`), so handing one on moves
 * nothing.
 */
export class RunWorkspaces {
  readonly runId: string;
  readonly repo: string;
  readonly branch: string;
  /** The commit the run started from. */
  readonly base: string;
  /** Whether `base` is a commit dagent made of the user's uncommitted changes (on top of HEAD). */
  readonly baseHoldsUncommitted: boolean;
  readonly objects: GitObjects;
  readonly folder: string;
  readonly #linked: readonly string[];
  readonly #worktreeLock = new SerialLock();
  readonly #mergeLock = new SerialLock();
  /** Merged changes reach the working copy one at a time, in the order they merged. */
  readonly #deliveryLock = new SerialLock();
  /** Worktrees nodes are done with, where they are, each cleared as soon as it was let go of: the next nodes', with one checkout. */
  readonly #spares: Spare[] = [];
  /** Worktrees made ahead (`prepare`): a node takes one with one checkout at most. */
  readonly #ahead = new WorktreesAhead({ fresh: (commit) => this.#fresh(commit), bring: (path, shows, commit) => this.#bring(path, shows, commit) });
  #closing = false;
  /** A node found no worktree ready (it took the one being made, or made its own). */
  #stageHere = false;
  /** Worktrees being deleted (not this process's, or changed by their node): `close` waits for them. */
  readonly #releasing = new Set<Promise<void>>();
  /** The `.git` file git wrote for each worktree this process made, by its folder: a reused one must still have it. */
  readonly #gitFiles = new Map<string, string>();
  /** The views nodes that only read share, by the run-branch commit each shows. */
  readonly #views = new Map<string, SharedView>();
  /** The run branch's tip as last seen: a view of an older commit is let go once nobody reads it. */
  #tip: string | undefined;

  private constructor(options: RunWorkspacesOptions, objects: GitObjects, base: string, baseHoldsUncommitted: boolean, linked: readonly string[]) {
    this.runId = options.runId;
    this.repo = options.repo;
    this.branch = runBranch(options.runId);
    this.objects = objects;
    this.base = base;
    this.baseHoldsUncommitted = baseHoldsUncommitted;
    this.folder = join(options.repo, '.dagent', 'worktrees', options.runId);
    this.#linked = linked;
  }

  /** The run's workspaces: the run branch made (or found again, on resume) and the folders to link listed. */
  static async open(options: RunWorkspacesOptions): Promise<RunWorkspaces> {
    const objects = new GitObjects(options.repo, options.git ?? runGit);
    objects.prepareCommits();
    const baseRef = `refs/dagent/${options.runId}/base`;
    let base = await objects.commitOf(baseRef);
    let uncommitted = false;
    if (base === undefined) {
      ({ base, uncommitted } = await startingCommit(objects, options));
      await objects.moveRef(baseRef, base, undefined);
    } else {
      uncommitted = base !== (await objects.commitOf('HEAD'));
    }
    if ((await objects.commitOf(`refs/heads/${runBranch(options.runId)}`)) === undefined) await objects.moveRef(`refs/heads/${runBranch(options.runId)}`, base, undefined);
    const workspaces = new RunWorkspaces(options, objects, base, uncommitted, await ignoredFolders(objects));
    await workspaces.head();
    await mkdir(workspaces.folder, { recursive: true });
    // Node worktrees are the run's own: never part of the user's `git status`.
    await writeFile(join(dirname(workspaces.folder), '.gitignore'), '# dagent: one working copy per node of a run\n*\n');
    await writeFile(workspaces.#excludesFile, workspaces.#linked.map((path) => `/${path}\n`).join(''));
    if (options.prepareView === true) workspaces.#viewAt(workspaces.#tip ?? (await workspaces.head()));
    return workspaces;
  }

  /**
   * Makes worktrees ahead, one after another while the first nodes go on: when `count` nodes that
   * need their own start at once (a stage of edits), each takes one ready instead of waiting in turn
   * for `git worktree add` (serialised). Views and spares count. Best effort (resolves when done).
   */
  prepare(count: number): Promise<void> {
    if (this.#closing) return Promise.resolve();
    return this.#ahead.make({
      wanted: count - this.#views.size - this.#spares.length,
      // The view the first readers wait for is made first.
      after: Promise.all([...this.#views.values()].map((view) => view.ready.catch(() => undefined))),
      commitOf: async () => this.#tip ?? (await this.head()),
      // Once a node found none ready, the stage is here: making more ahead would only queue before it.
      enough: () => this.#stageHere,
    });
  }

  /** The run branch's tip: the base plus every change merged so far. */
  async head(): Promise<string> {
    const head = await this.objects.commitOf(`refs/heads/${this.branch}`);
    if (head === undefined) throw new Error(`the run branch ${this.branch} is gone`);
    this.#tip = head;
    return head;
  }

  /** The run branch was moved by other means than a merge (a node's revert): its tip is read again when next needed. */
  forgetTip(): void {
    this.#tip = undefined;
  }

  /**
   * A view of the run branch's tip for a node that cannot change a file (`readsOnly`): one worktree
   * every such node shares while the tip stays where it is, made (or a spare reset) for the first of
   * them. Checking out, committing and merging a worktree per node is what costs, and a node that
   * only reads has nothing to commit. Once the tip has moved on, a view nobody reads goes back to
   * the spares.
   */
  async openReader(nodeId: string): Promise<NodeWorkspace> {
    // Only this run moves its branch (its merges, a node's revert, which says so): the tip it knows is the tip.
    const head = this.#tip ?? (await this.head());
    const shared = this.#viewAt(head);
    shared.readers += 1;
    let path: string;
    try {
      path = await shared.ready;
    } catch (error) {
      shared.readers -= 1;
      throw error;
    }
    return new NodeWorkspace({ ...this.#host, release: () => this.#leave(shared) }, nodeId, path, head, { shared: true });
  }

  /** A view that is ready and read by nobody, taken out of the views (a spare for a node that needs a worktree): its folder. */
  #unreadView(): string | undefined {
    const view = [...this.#views.values()].find((candidate) => candidate.readers === 0 && candidate.path !== undefined);
    if (view === undefined) return undefined;
    this.#views.delete(view.commit);
    return view.path;
  }

  /**
   * A view still being made that nobody reads (the one made as the run opens, for readers the plan
   * may not have, or not yet), taken for a node once it is made, brought to `checkout`: its folder.
   * Readers that come later get a view of their own.
   */
  async #takeViewBeingMade(checkout: string): Promise<string | undefined> {
    const view = [...this.#views.values()].find((candidate) => candidate.readers === 0 && candidate.path === undefined);
    if (view === undefined) return undefined;
    this.#views.delete(view.commit);
    const path = await view.ready.catch(() => undefined);
    return path === undefined ? undefined : this.#bring(path, view.commit, checkout);
  }

  /** The view of `head` the readers share: made (or an idle view's worktree reset) when there is none. */
  #viewAt(head: string): SharedView {
    const view = this.#views.get(head);
    if (view !== undefined) return view;
    // The views of older commits nobody reads go back to the spares first: the new view may be one of them, reset.
    const idle = [...this.#views.values()].filter((older) => older.readers === 0);
    const made: SharedView = { commit: head, readers: 0, ready: Promise.all(idle.map((older) => this.#letGoOf(older))).then(() => this.#place(head, [])) };
    made.ready.then(
      (path) => (made.path = path),
      () => this.#views.get(head) === made && this.#views.delete(head),
    );
    this.#views.set(head, made);
    return made;
  }

  /**
   * A fresh worktree for one node attempt, at the run branch's tip (its dependencies' merged
   * results included). Dependency folders are linked in read-only, except those the node's
   * `writes` reach into (`node_modules/.cache/**`): those are copied, its own to write.
   */
  async openNode(nodeId: string, writes: readonly string[] = []): Promise<NodeWorkspace> {
    return this.#open(nodeId, this.#tip ?? (await this.head()), undefined, writes);
  }

  /**
   * A fresh worktree for a node attempt that goes on from an earlier one: its files as `checkout`
   * (a step checkpoint) holds them, its change still counted from `start`, where the node began.
   */
  async reopenNode(nodeId: string, start: string, checkout: string, writes: readonly string[] = []): Promise<NodeWorkspace> {
    return this.#open(nodeId, start, checkout, writes);
  }

  /** The worktree an earlier process left at `path` for a node, when its folder is still there. */
  leftNode(nodeId: string, path: string, start: string): NodeWorkspace | undefined {
    if (!path.startsWith(`${this.folder}/`) || !existsSync(join(path, '.git'))) return undefined;
    // A view this process's readers share now is not what a stopped attempt left.
    if ([...this.#views.values()].some((view) => view.path === path)) return undefined;
    return new NodeWorkspace(this.#host, nodeId, path, start);
  }

  /** Removes a node worktree an earlier process left, and git's record of it. */
  async removeLeft(workspace: NodeWorkspace): Promise<void> {
    await workspace.remove();
    await this.#prune();
  }

  async #open(nodeId: string, start: string, checkout: string = start, writes: readonly string[] = []): Promise<NodeWorkspace> {
    return new NodeWorkspace(this.#host, nodeId, await this.#place(checkout, writes, true), start);
  }

  /**
   * A worktree checked out at `checkout` (one made ahead, a spare, for a node the one being made
   * ahead, else a new one), the dependency folders linked in: its folder (`forNode`: a node's, not a view).
   */
  async #place(checkout: string, writes: readonly string[], forNode = false): Promise<string> {
    let path = (await this.#ahead.takeReady(checkout)) ?? (await this.#reuseSpare(checkout));
    if (path === undefined) {
      this.#stageHere ||= forNode;
      // Not for a view: the worktrees made ahead wait for the views to be made first.
      if (forNode) path = (await this.#takeViewBeingMade(checkout)) ?? (await this.#ahead.takeComing(checkout));
      path ??= await this.#fresh(checkout);
    }
    const writable = writableFolders(this.#linked, writes);
    await Promise.all(this.#linked.map((folder) => (writable.has(folder) ? copyFolder(this.repo, path, folder) : linkFolder(this.repo, path, folder))));
    return path;
  }

  /** A reader is done with its view: the view stays while the tip is its commit (the next readers'), else it goes once nobody reads it. */
  async #leave(view: SharedView): Promise<void> {
    view.readers -= 1;
    if (view.readers === 0 && view.commit !== this.#tip) await this.#letGoOf(view);
  }

  async #letGoOf(view: SharedView): Promise<void> {
    if (this.#views.get(view.commit) !== view) return;
    this.#views.delete(view.commit);
    await this.#release(await view.ready);
  }

  /** A new worktree (`wt-<id>`, a name no earlier process used), checked out at `checkout`: its folder. */
  async #fresh(checkout: string): Promise<string> {
    const path = join(this.folder, `wt-${randomBytes(4).toString('hex')}`);
    await this.#worktreeLock.run(() => this.objects.git(['worktree', 'add', '--no-checkout', '--detach', path, checkout], { cwd: this.repo }));
    // The checkout writes only the worktree's own index and files: checkouts run side by side.
    await this.objects.inWorktree(path, ['read-tree', '-m', '-u', 'HEAD']);
    this.#gitFiles.set(path, await worktreeGitFile(path));
    return path;
  }

  /** A spare (one cleared already first), or an idle view, brought to `checkout` where it is; undefined when there is none, or it could not be (then deleted). */
  async #reuseSpare(checkout: string): Promise<string | undefined> {
    const settled = this.#spares.findIndex((candidate) => candidate.settled);
    const spare = (settled === -1 ? this.#spares.pop() : this.#spares.splice(settled, 1)[0]) ?? this.#spareOf(this.#unreadView());
    if (spare === undefined) return undefined;
    return (await spare.cleared) ? this.#bring(spare.path, undefined, checkout) : this.#discard(spare.path).then(() => undefined);
  }

  /** A worktree no node is in, showing `shows`, brought to `checkout` where it is: its folder; undefined (and deleted) when it could not be. */
  async #bring(path: string, shows: string | undefined, checkout: string): Promise<string | undefined> {
    if (shows === checkout) return path;
    try {
      await checkoutDetached(this.objects, path, checkout);
      return path;
    } catch {
      await this.#discard(path);
      return undefined;
    }
  }

  /** A worktree let go of, cleared from now on: the clean of what its node left happens while the run goes on, and the next node waits for a checkout only. */
  #spareOf(path: string | undefined): Spare | undefined {
    return path === undefined ? undefined : spareOf(this.objects, path, this.#gitFiles.get(path));
  }

  async #discard(path: string): Promise<void> {
    this.#gitFiles.delete(path);
    await rm(path, { recursive: true, force: true });
    await this.#prune();
  }

  /**
   * A node's worktree it is done with: kept where it is for the next node when this process made
   * it (the next node checks that its `.git` file is still as git wrote it), else deleted; a node
   * that ends does not wait for the deletion.
   */
  #release(path: string): Promise<void> {
    if (this.#gitFiles.has(path)) {
      this.#spares.push(this.#spareOf(path)!);
      return Promise.resolve();
    }
    const releasing = rm(path, { recursive: true, force: true }).finally(() => this.#releasing.delete(releasing));
    this.#releasing.add(releasing);
    return releasing;
  }

  get #host(): NodeWorkspaceHost {
    return { objects: this.objects, excludesFile: this.#excludesFile, release: (path) => this.#release(path) };
  }

  /**
   * Merges a node's commit onto the run branch (three-way, from the commit its workspace began
   * at), one merge at a time: a clean merge becomes one run-branch commit with `message`; lines
   * changed on both sides are a conflict, and the branch is left as it was. `settle` runs after a
   * clean merge (bringing the change into the working copy): after the settle of every merge before
   * it, in merge order, while the next merges go on onto the branch (they do not read the working copy).
   */
  merge(node: NodeCommit, message: string, settle?: (merged: Extract<MergeOutcome, { status: 'merged' }>) => Promise<void>): Promise<MergeOutcome> {
    const merging = this.#mergeOnBranch(node, message);
    merging.catch(() => undefined);
    return this.#deliveryLock.run(async () => {
      const outcome = await merging;
      if (outcome.status === 'merged') await settle?.(outcome);
      return outcome;
    });
  }

  #mergeOnBranch(node: NodeCommit, message: string): Promise<MergeOutcome> {
    return this.#mergeLock.run(async () => {
      // The tip this run last moved its branch to (the move below fails if anything else moved it since).
      const head = this.#tip ?? (await this.head());
      let tree: string;
      if (head === node.start) {
        tree = await this.objects.treeOf(node.commit);
      } else {
        const merged = await this.objects.mergeCommits(node.start, head, node.commit);
        if (merged.conflicted.length > 0) return { status: 'conflict', conflicts: await conflictsIn(this.objects, merged.tree, merged.conflicted) };
        tree = merged.tree;
      }
      if (tree === (await this.objects.treeOf(head))) return { status: 'unchanged', commit: head };
      const commit = await this.objects.commitTree(tree, [head], message);
      // On the tip the node began at, the merged commit changes exactly the node's own files.
      const changed = head === node.start ? Promise.resolve(node.files) : this.objects.changedPaths(head, commit);
      changed.catch(() => undefined);
      try {
        await this.objects.moveRef(`refs/heads/${this.branch}`, commit, head);
      } catch (error) {
        this.#tip = undefined;
        throw error;
      }
      this.#tip = commit;
      const files = await changed;
      return { status: 'merged' as const, commit, parent: head, files };
    });
  }

  /** Removes every node worktree of the run that is left (their commits stay). */
  async close(): Promise<void> {
    this.#closing = true;
    // A view or worktree still being made (made ahead, no node used it) is waited for, then removed with the rest.
    await Promise.all([...this.#releasing, this.#ahead.stop(), ...this.#spares.map((spare) => spare.cleared), ...[...this.#views.values()].map((view) => view.ready.catch(() => undefined))]);
    this.#spares.splice(0);
    this.#views.clear();
    this.#gitFiles.clear();
    await rm(this.folder, { recursive: true, force: true });
    await this.#prune();
    this.objects.close();
  }

  get #excludesFile(): string {
    return join(this.folder, LINKED_FOLDERS_FILE);
  }

  #prune(): Promise<void> {
    return this.#worktreeLock.run(async () => {
      await this.objects.git(['worktree', 'prune'], { cwd: this.repo });
    });
  }
}
