import { randomBytes } from 'node:crypto';
import { rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SNAPSHOT_EXCLUDED_FOLDERS } from './file-workspace.js';

/** Past this many watched folders the watcher gives up and the snapshots scan instead. */
export const MAX_WATCHED_FOLDERS = 20_000;
/** Where the barrier file lives (under `.dagent/`, which snapshots never read). */
const BARRIER_FOLDER = join('.dagent', 'watch');
const BARRIER_TIMEOUT_MS = 5_000;

/** Decides which new folders to leave unwatched (e.g. those git ignores); relative paths, `/` separators. */
export type FolderFilter = (folders: readonly string[]) => Promise<ReadonlySet<string>>;

/**
 * The paths that may have changed in a workspace since a moment, without reading or stating every
 * file: one inotify (or FSEvents) watch per folder, set once per run. A folder that appears is
 * watched and walked, so files made in it before its watch count as changed. `settle()` writes a
 * barrier file and waits for its event: the watches of one process report in order, so every
 * change made before the barrier has been seen. The watcher turns `broken` (and the caller falls
 * back to a full scan) when a watch fails, there are too many folders, or the barrier is late.
 */
export class WorkspaceWatcher {
  readonly root: string;
  readonly #skip: FolderFilter;
  readonly #watchers = new Map<string, FSWatcher>();
  readonly #pending = new Set<string>();
  readonly #walks = new Set<Promise<void>>();
  #barrierWaiters = new Map<string, () => void>();
  #broken: string | undefined;
  #closed = false;

  private constructor(root: string, skip: FolderFilter) {
    this.root = root;
    this.#skip = skip;
  }

  /** Watches every folder of `root` except `.git/`, `.dagent/` and those `skip` names (and theirs). */
  static async start(root: string, skip: FolderFilter): Promise<WorkspaceWatcher> {
    const watcher = new WorkspaceWatcher(root, skip);
    await mkdir(join(root, BARRIER_FOLDER), { recursive: true });
    watcher.#watchBarrier();
    await watcher.#walk([''], false);
    return watcher;
  }

  /** Why the watcher can no longer be trusted, or undefined while it can. */
  get broken(): string | undefined {
    return this.#broken;
  }

  /** Waits until every change made before this call has been reported. */
  async settle(): Promise<void> {
    if (this.#broken !== undefined) return;
    const name = `barrier-${randomBytes(6).toString('hex')}`;
    const seen = new Promise<void>((resolve) => this.#barrierWaiters.set(name, resolve));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.#break('a change report came later than expected');
        resolve();
      }, BARRIER_TIMEOUT_MS);
    });
    // Written synchronously (an empty file: microseconds), not through the thread pool: the only
    // wait left is for the event itself.
    const barrier = join(this.root, BARRIER_FOLDER, name);
    writeFileSync(barrier, '');
    await Promise.race([seen, late]);
    clearTimeout(timer);
    this.#barrierWaiters.delete(name);
    rmSync(barrier, { force: true });
    while (this.#walks.size > 0) await Promise.allSettled([...this.#walks]);
  }

  /** The paths reported since the last call (files, links, and folders that went away), and forgets them. */
  takeChanges(): string[] {
    const paths = [...this.#pending];
    this.#pending.clear();
    return paths;
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  #watchBarrier(): void {
    const folder = join(this.root, BARRIER_FOLDER);
    const watcher = watch(folder, (_event, name) => {
      if (name !== null) this.#barrierWaiters.get(String(name))?.();
    });
    watcher.on('error', (error) => this.#break(`the barrier watch failed: ${error.message}`));
    this.#watchers.set(BARRIER_FOLDER, watcher);
  }

  #watchFolder(folder: string): boolean {
    if (this.#closed || this.#broken !== undefined || this.#watchers.has(folder)) return false;
    if (this.#watchers.size > MAX_WATCHED_FOLDERS) {
      this.#break(`the workspace has more than ${MAX_WATCHED_FOLDERS} folders`);
      return false;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(join(this.root, folder), (_event, name) => this.#onEvent(folder, name === null ? null : String(name)));
    } catch (error) {
      // A folder gone before its watch is set: its parent reports it.
      if ((error as { code?: unknown }).code === 'ENOENT') return false;
      this.#break(`watching ${folder || '.'} failed: ${(error as Error).message}`);
      return false;
    }
    watcher.on('error', () => {
      watcher.close();
      if (this.#watchers.get(folder) === watcher) this.#watchers.delete(folder);
    });
    this.#watchers.set(folder, watcher);
    return true;
  }

  #onEvent(folder: string, name: string | null): void {
    if (name === null) {
      // The name was lost: everything in the folder may have changed.
      this.#track(this.#walk([folder], true));
      return;
    }
    const path = folder === '' ? name : `${folder}/${name}`;
    if (folder === '' && SNAPSHOT_EXCLUDED_FOLDERS.includes(name.toLowerCase())) return;
    this.#pending.add(path);
    if (!this.#watchers.has(path)) this.#track(this.#walkIfFolder(path));
  }

  async #walkIfFolder(path: string): Promise<void> {
    const entry = await lstat(join(this.root, path)).catch(() => undefined);
    if (entry?.isDirectory() === true) await this.#walk([path], true);
  }

  /** Watches the folders (and the folders below them, level by level), reporting their files when `report`. */
  async #walk(start: readonly string[], report: boolean): Promise<void> {
    let level = [...start];
    while (level.length > 0 && this.#broken === undefined && !this.#closed) {
      const skipped = await this.#skip(level.filter((folder) => folder !== ''));
      const next: string[] = [];
      for (const folder of level) {
        if (skipped.has(folder)) continue;
        const fresh = this.#watchFolder(folder);
        if (!fresh && !report) continue;
        const entries = await readdir(join(this.root, folder), { withFileTypes: true }).catch(() => []);
        for (const entry of entries) {
          const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
          if (folder === '' && SNAPSHOT_EXCLUDED_FOLDERS.includes(entry.name.toLowerCase())) continue;
          if (entry.isDirectory()) {
            if (fresh || report) next.push(path);
          } else if (report) {
            this.#pending.add(path);
          }
        }
      }
      level = next;
    }
  }

  #track(walk: Promise<void>): void {
    const tracked = walk.catch((error: unknown) => this.#break(`walking a new folder failed: ${(error as Error).message}`));
    this.#walks.add(tracked);
    void tracked.finally(() => this.#walks.delete(tracked));
  }

  #break(reason: string): void {
    this.#broken ??= reason;
  }
}
