import { randomBytes } from 'node:crypto';
import { lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { GitEntry, GitWorkingTree } from './file-git.js';
import { GIT_LINK_MODE } from './file-git.js';
import type { NodeBoundary } from './file-node-boundary.js';
import { ABSENT_FILE, fileStateOf, linkStateOf, stateBytes, type FileState } from './file-state.js';
import { readState } from './file-workspace.js';
import { isDagentTempFile } from './temp-file-name.js';
import { WorkspaceWatcher } from './workspace-watcher.js';

type WatchBoundary = Extract<NodeBoundary, { kind: 'watch' }>;

/** Where a path's entry at a boundary came from: the base tree (stored through git's filters) or the watcher (raw bytes). */
export interface BoundaryEntry {
  readonly entry: GitEntry | null;
  readonly raw: boolean;
}

/** A path's state from its entry in a tree: a link's target, a file's bytes (through checkout filters when git stored it filtered). */
export async function stateOfEntry(git: GitWorkingTree, path: string, { entry, raw }: BoundaryEntry): Promise<FileState> {
  if (entry === null) return ABSENT_FILE;
  if (entry.mode === GIT_LINK_MODE) return linkStateOf((await git.readRawBlob(entry.blob)).toString('utf8'));
  return fileStateOf(raw ? await git.readRawBlob(entry.blob) : await git.readBlob(entry.blob, path));
}

/**
 * A git workspace's working copy kept current without scanning it: one full snapshot (the base
 * tree) when the run's first node begins, then only the paths a `WorkspaceWatcher` reports, each
 * stored as a blob (an overlay of entries over the base). A boundary and a comparison cost what
 * changed, not what the repository holds. While the watcher is not `broken`, the tracker can
 * tell what changed since any boundary it made.
 */
export class GitChangeTracker {
  readonly session = randomBytes(8).toString('hex');
  readonly #git: GitWorkingTree;
  readonly #watcher: WorkspaceWatcher;
  readonly base: string;
  /** The base tree's entries, kept when it has at most `MAX_BASE_ENTRIES_KEPT`: a path's first change then costs no `git ls-tree`. */
  readonly #baseEntries: ReadonlyMap<string, GitEntry> | undefined;
  readonly #overlay = new Map<string, GitEntry | null>();
  #catchingUp: Promise<void> = Promise.resolve();

  private constructor(git: GitWorkingTree, watcher: WorkspaceWatcher, base: string, baseEntries: ReadonlyMap<string, GitEntry> | undefined) {
    this.#git = git;
    this.#watcher = watcher;
    this.base = base;
    this.#baseEntries = baseEntries;
  }

  /** Starts the watcher, then takes the base tree (so no change between the two is missed) and lists it. */
  static async start(git: GitWorkingTree): Promise<GitChangeTracker> {
    const watcher = await WorkspaceWatcher.start(git.root, (folders) => git.ignored(folders));
    try {
      const base = await git.writeTree();
      const entries = await git.treeEntries(base);
      return new GitChangeTracker(git, watcher, base, entries.size <= MAX_BASE_ENTRIES_KEPT ? entries : undefined);
    } catch (error) {
      watcher.close();
      throw error;
    }
  }

  /** Why the tracker can no longer be trusted (then the caller scans), or undefined. */
  get broken(): string | undefined {
    return this.#watcher.broken;
  }

  /** Whether this tracker made the boundary (and so can answer what changed since it). */
  owns(boundary: NodeBoundary): boundary is WatchBoundary {
    return boundary.kind === 'watch' && boundary.session === this.session && boundary.base === this.base && this.broken === undefined;
  }

  /** The working copy now, as a boundary. */
  async boundary(writes: readonly string[]): Promise<WatchBoundary> {
    await this.catchUp();
    return { kind: 'watch', session: this.session, base: this.base, overlay: Object.fromEntries(this.#overlay), writes: [...writes] };
  }

  /** Paths whose entry differs between `boundary` and now, sorted, with their entry at the boundary. */
  async changesSince(boundary: WatchBoundary): Promise<Map<string, BoundaryEntry>> {
    await this.catchUp();
    const changed = new Map<string, BoundaryEntry>();
    const fromBase: string[] = [];
    for (const [path, entry] of this.#overlay) {
      if (Object.hasOwn(boundary.overlay, path)) {
        const before = boundary.overlay[path] ?? null;
        if (!sameEntry(before, entry)) changed.set(path, { entry: before, raw: true });
      } else {
        fromBase.push(path);
      }
    }
    const baseEntries = await this.#entriesInBase(fromBase);
    for (const path of fromBase) {
      const before = baseEntries.get(path) ?? null;
      if (!sameEntry(before, this.#overlay.get(path) ?? null)) changed.set(path, { entry: before, raw: false });
    }
    return new Map([...changed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** The base tree's entries at `paths` (files and links only; a folder's path has none). */
  async #entriesInBase(paths: readonly string[]): Promise<ReadonlyMap<string, GitEntry>> {
    if (this.#baseEntries === undefined) return this.#git.lsTree(this.base, paths);
    const entries = new Map<string, GitEntry>();
    for (const path of paths) {
      const entry = this.#baseEntries.get(path);
      if (entry !== undefined) entries.set(path, entry);
    }
    return entries;
  }

  /** Stores the reported paths' current content as blobs and updates the overlay; one catch-up at a time. */
  catchUp(): Promise<void> {
    const next = this.#catchingUp.then(() => this.#catchUpOnce());
    this.#catchingUp = next.catch(() => undefined);
    return next;
  }

  close(): void {
    this.#watcher.close();
  }

  async #catchUpOnce(): Promise<void> {
    await this.#watcher.settle();
    const reported = this.#watcher.takeChanges().filter((path) => !isDagentTempFile(path));
    if (reported.length === 0) return;
    const root = this.#git.root;
    const states = await Promise.all(reported.map(async (path) => [path, await readState(root, path)] as const));
    const present = states.filter(([, state]) => state.kind === 'file' || state.kind === 'link');
    // A path of the base tree was staged by `git add -A`, so git does not ignore it: only new paths are asked about.
    const ignored = await this.#git.ignored(present.map(([path]) => path).filter((path) => !this.#overlay.has(path) && this.#baseEntries?.has(path) !== true));
    const gone: string[] = [];
    for (const [path, state] of states) {
      if (state.kind === 'file' || state.kind === 'link') {
        if (ignored.has(path)) continue;
        const mode = state.kind === 'link' ? GIT_LINK_MODE : isExecutable(join(root, path)) ? '100755' : '100644';
        this.#overlay.set(path, { mode, blob: await this.#git.hashBytes(stateBytes(state)!) });
      } else if (!isFolder(join(root, path)) || this.#mayHaveEntry(path)) {
        // A folder that is there (made by the node) has nothing of its own to store: the watcher
        // reports the files in it. Unless a file or link stood at its path: that one is gone.
        gone.push(path);
      }
    }
    if (gone.length > 0) await this.#forget(gone);
  }

  /** Whether a file or link may stand at `path` in the base tree or the overlay (true when the base was not listed). */
  #mayHaveEntry(path: string): boolean {
    const current = this.#overlay.get(path);
    if (current !== undefined) return current !== null;
    return this.#baseEntries === undefined || this.#baseEntries.has(path);
  }

  /** Paths (files or whole folders) that are no longer there: every entry at or under them is removed. */
  async #forget(paths: readonly string[]): Promise<void> {
    const root = this.#git.root;
    const inBase = await this.#git.lsTree(this.base, paths);
    const candidates = new Set(inBase.keys());
    const prefixes = paths.map((path) => `${path}/`);
    for (const [path, entry] of this.#overlay) {
      if (entry !== null && (paths.includes(path) || prefixes.some((prefix) => path.startsWith(prefix)))) candidates.add(path);
    }
    for (const path of candidates) {
      if ((await readState(root, path)).kind === 'absent') this.#overlay.set(path, null);
    }
  }
}

/** Past this many files and links in the base tree, its listing is not kept in memory (about 100 bytes an entry). */
const MAX_BASE_ENTRIES_KEPT = 300_000;


function isFolder(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

function isExecutable(path: string): boolean {
  const found = statSync(path, { throwIfNoEntry: false });
  return found !== undefined && (found.mode & 0o111) !== 0;
}

function sameEntry(a: GitEntry | null, b: GitEntry | null): boolean {
  if (a === null || b === null) return a === b;
  return a.blob === b.blob && a.mode === b.mode;
}
