import { GitWorkingTree } from '../snapshots/file-git.js';
import type { GitObjects } from './git-objects.js';

/** HEAD when the working copy matches it; else a commit on HEAD of the working copy as it is (tracked and untracked, .gitignore honoured). */
export async function startingCommit(objects: GitObjects, options: { readonly repo: string; readonly runId: string }): Promise<{ base: string; uncommitted: boolean }> {
  const snapshot = new GitWorkingTree(options.repo, objects.git);
  try {
    const tree = await snapshot.writeTree();
    const head = await objects.commitOf('HEAD');
    if (head !== undefined && (await objects.treeOf(head)) === tree) return { base: head, uncommitted: false };
    const message = `dagent: the working copy's uncommitted changes when run ${options.runId} started`;
    return { base: await objects.commitTree(tree, head === undefined ? [] : [head], message), uncommitted: true };
  } finally {
    snapshot.close();
  }
}
