import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GitignoreFilter } from './gitignore-filter.js';
import type { WorkspaceGuard, WorkspacePath } from './workspace/index.js';

/** Entries visited in one walk before it stops, whatever the caller's own cap. */
export const MAX_WALK_ENTRIES = 100_000;
/** Folders nested deeper than this are not entered. */
export const MAX_WALK_DEPTH = 64;

export type EntryKind = 'file' | 'dir' | 'symlink' | 'other';

export interface WalkEntry {
  /** Workspace-relative, `/` separators. */
  readonly relative: string;
  readonly absolute: string;
  readonly kind: EntryKind;
}

export interface WalkOptions {
  readonly signal: AbortSignal;
  /** Apply `.gitignore` rules; the walk of an ignored folder asked for by name lists it anyway. */
  readonly gitignore?: boolean;
}

/** Why a walk ended early, if it did. */
export interface WalkSummary {
  visited: number;
  stoppedEarly: boolean;
  /** The start folder is itself ignored, so its ignore rules were not applied. */
  startIgnored: boolean;
}

/**
 * Every entry below a folder, depth first, names sorted: `.git` is skipped, `.gitignore`d entries
 * are skipped, symbolic links are reported but never followed (so a walk cannot leave the
 * workspace or loop). Stops after `MAX_WALK_ENTRIES`.
 */
export async function* walkWorkspace(guard: WorkspaceGuard, start: WorkspacePath, options: WalkOptions, summary: WalkSummary): AsyncGenerator<WalkEntry> {
  const filter = options.gitignore === false ? undefined : new GitignoreFilter(guard.realRoot);
  summary.startIgnored = filter !== undefined && start.relative !== '.' && (await filter.isIgnored(start.relative, true));
  const walk = new Walk(summary.startIgnored ? undefined : filter, options.signal, summary);
  yield* walk.folder(start.absolute, start.relative === '.' ? '' : start.relative, 0);
}

class Walk {
  constructor(
    readonly filter: GitignoreFilter | undefined,
    readonly signal: AbortSignal,
    readonly summary: WalkSummary,
  ) {}

  async *folder(absolute: string, relative: string, depth: number): AsyncGenerator<WalkEntry> {
    this.signal.throwIfAborted();
    let entries: Dirent[];
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const entry of entries) {
      if (this.summary.stoppedEarly) return;
      if (entry.name === '.git') continue;
      this.summary.visited += 1;
      if (this.summary.visited > MAX_WALK_ENTRIES) {
        this.summary.stoppedEarly = true;
        return;
      }
      const childRelative = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const kind: EntryKind = entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : 'other';
      if (this.filter !== undefined && (await this.filter.isIgnored(childRelative, kind === 'dir'))) continue;
      const childAbsolute = join(absolute, entry.name);
      yield { relative: childRelative, absolute: childAbsolute, kind };
      if (kind === 'dir' && depth < MAX_WALK_DEPTH) yield* this.folder(childAbsolute, childRelative, depth + 1);
    }
  }
}

/** A fresh summary to pass to `walkWorkspace`. */
export function createWalkSummary(): WalkSummary {
  return { visited: 0, stoppedEarly: false, startIgnored: false };
}
