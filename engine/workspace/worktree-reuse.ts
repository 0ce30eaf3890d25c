import { readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { GitObjects } from './git-objects.js';

/**
 * What stays of a worktree's own git folder (`.git/worktrees/<id>`) when it is reused: git's
 * record of where it is, HEAD and its index. Anything else there is what an earlier node's
 * commands left (a merge, rebase, cherry-pick or bisect under way, the HEAD reflog, per-worktree
 * refs and config): none of it goes on to the next node.
 */
const KEPT_GIT_ENTRIES: ReadonlySet<string> = new Set(['commondir', 'gitdir', 'HEAD', 'index']);

/** An index entry git would not look at on disk (`assume-unchanged`: a lower-case tag; `skip-worktree`: `S`). */
const UNWATCHED_ENTRY = /^(?:[a-z]|S) /m;

/** The text of a worktree's `.git` file: where its own git folder is. */
export function worktreeGitFile(worktree: string): Promise<string> {
  return readFile(join(worktree, '.git'), 'utf8');
}

/** The folder a worktree's `.git` file (its text, `gitdir: <path>`) leads to, absolute (git may write it relative to the worktree). Pure. */
export function worktreeGitDir(worktree: string, gitFile: string): string {
  return resolve(worktree, gitFile.replace(/^gitdir: /, '').trim());
}

/**
 * Clears a worktree an earlier node used for the next node, to be brought to its commit by one
 * checkout (`checkoutDetached`) exactly as a fresh checkout of it would be: git's per-worktree state
 * cleared, every untracked and ignored file removed (`clean -ffdx`: links are removed, never
 * followed; the linked dependency folders are linked again by the caller); the checkout then makes
 * the tracked files the commit's (only those that differ from it are written: the index knows
 * which; a file the node staged and the commit lacks is removed). The index's check and the clean
 * read the index only, side by side. Throws when the worktree cannot be trusted to come out exact
 * (its `.git` file is not `gitFile`, as git wrote it; an index entry git would not look at): the
 * caller makes a fresh worktree instead. Runs as soon as the node is done with the worktree, before
 * the next node, and its commit, are known (`spareOf`).
 */
export async function clearWorktree(objects: GitObjects, worktree: string, gitFile: string): Promise<void> {
  if ((await worktreeGitFile(worktree)) !== gitFile) throw new Error(`${worktree}: its .git file changed`);
  const gitDir = worktreeGitDir(worktree, gitFile);
  await Promise.all((await readdir(gitDir)).filter((entry) => !KEPT_GIT_ENTRIES.has(entry)).map((entry) => rm(join(gitDir, entry), { recursive: true, force: true })));
  const [entries] = await Promise.all([objects.inWorktree(worktree, ['ls-files', '-v']), objects.inWorktree(worktree, ['clean', '-q', '-ffdx'])]);
  if (UNWATCHED_ENTRY.test(entries)) throw new Error(`${worktree}: its index hides files from git`);
}

/** A worktree a node is done with, being cleared for the next (`clearWorktree`): `cleared` says whether it came out of it, once `settled`. */
export interface Spare {
  readonly path: string;
  readonly cleared: Promise<boolean>;
  readonly settled: boolean;
}

/** `worktree`, let go of by its node, cleared from now on (`gitFile`: its `.git` file as git wrote it; none: it cannot be trusted). */
export function spareOf(objects: GitObjects, worktree: string, gitFile: string | undefined): Spare {
  const spare = { path: worktree, cleared: Promise.resolve(false), settled: false };
  const clearing = gitFile === undefined ? Promise.resolve(false) : clearWorktree(objects, worktree, gitFile).then(() => true, () => false);
  spare.cleared = clearing.finally(() => (spare.settled = true));
  return spare;
}

/** HEAD detached at `commit`, the tracked files made the commit's (only those that differ are written; sparse checkout off). */
export async function checkoutDetached(objects: GitObjects, worktree: string, commit: string): Promise<void> {
  await objects.inWorktree(worktree, ['-c', 'core.sparseCheckout=false', 'checkout', '-q', '-f', '--detach', commit]);
}
