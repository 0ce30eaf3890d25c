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

/**
 * Brings a worktree an earlier node used to `commit`, exactly as a fresh checkout of it would be:
 * git's per-worktree state cleared, every untracked and ignored file removed (`clean -ffdx`: links
 * are removed, never followed; the linked dependency folders are linked again by the caller), then
 * HEAD detached at `commit` and the tracked files made the commit's (only those that differ from
 * it are written: the index knows which; a file the node staged and the commit lacks is removed).
 * The index's check and the clean read the index only, side by side: a node's start waits for two
 * git commands in turn, not three. Throws when the worktree cannot be trusted to come out exact
 * (its `.git` file is not `gitFile`, as git wrote it; an index entry git would not look at): the
 * caller makes a fresh worktree instead.
 */
export async function resetWorktree(objects: GitObjects, worktree: string, gitFile: string, commit: string): Promise<void> {
  if ((await worktreeGitFile(worktree)) !== gitFile) throw new Error(`${worktree}: its .git file changed`);
  const gitDir = resolve(worktree, gitFile.replace(/^gitdir: /, '').trim());
  await Promise.all((await readdir(gitDir)).filter((entry) => !KEPT_GIT_ENTRIES.has(entry)).map((entry) => rm(join(gitDir, entry), { recursive: true, force: true })));
  const [entries] = await Promise.all([objects.inWorktree(worktree, ['ls-files', '-v']), objects.inWorktree(worktree, ['clean', '-q', '-ffdx'])]);
  if (UNWATCHED_ENTRY.test(entries)) throw new Error(`${worktree}: its index hides files from git`);
  await checkoutDetached(objects, worktree, commit);
}

/** HEAD detached at `commit`, the tracked files made the commit's (only those that differ are written; sparse checkout off). */
export async function checkoutDetached(objects: GitObjects, worktree: string, commit: string): Promise<void> {
  await objects.inWorktree(worktree, ['-c', 'core.sparseCheckout=false', 'checkout', '-q', '-f', '--detach', commit]);
}
