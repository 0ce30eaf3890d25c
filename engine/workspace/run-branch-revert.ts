import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitObjects } from './git-objects.js';
import { runBranch } from './run-workspaces.js';

/** A node's change as it was merged onto the run branch (`node/merged`). */
export interface MergedNodeCommit {
  readonly nodeId: string;
  readonly commit: string;
}

/**
 * Takes nodes' changes back off the run branch `dagent/<run>`, in the order given (the last
 * merged first), as `rerun --from` needs: a node run again starts its workspace from the branch's
 * tip, which must no longer hold its earlier change. Each file the node's commit changed goes back
 * to its content before that commit when the tip still holds what the commit made (a later change
 * is left as it is); each node so taken back is one commit on the branch. Nothing happens without
 * a run branch (a run whose nodes shared the working copy). Returns the commits made.
 */
export async function revertOnRunBranch(workspace: string, runId: string, merged: readonly MergedNodeCommit[], reason: string): Promise<string[]> {
  const probe = new GitObjects(workspace);
  const top = await probe.text(['rev-parse', '--show-toplevel']).catch(() => undefined);
  if (top === undefined) return [];
  const objects = new GitObjects(top);
  const ref = `refs/heads/${runBranch(runId)}`;
  const made: string[] = [];
  try {
    for (const { nodeId, commit } of merged) {
      const reverted = await takeBack(objects, ref, nodeId, commit, reason);
      if (reverted !== undefined) made.push(reverted);
    }
  } finally {
    objects.close();
  }
  return made;
}

/** Takes one node's commit back off the branch `ref`: the commit made, or undefined when there was nothing to take back. */
async function takeBack(objects: GitObjects, ref: string, nodeId: string, commit: string, reason: string): Promise<string | undefined> {
  const top = objects.repo;
  const tip = await objects.commitOf(ref);
  const parent = await objects.commitOf(`${commit}^`);
  if (tip === undefined || parent === undefined) return undefined;
  const index = join(tmpdir(), `dagent-revert-${randomBytes(6).toString('hex')}.index`);
  try {
    await objects.text(['read-tree', tip], top, index);
    for (const path of await objects.changedPaths(parent, commit)) {
      const [atTip, byNode, before] = await Promise.all([entryOf(objects, tip, path), entryOf(objects, commit, path), entryOf(objects, parent, path)]);
      if (atTip !== byNode) continue;
      if (before === undefined) await objects.text(['update-index', '--force-remove', '--', path], top, index);
      else await objects.text(['update-index', '--add', '--cacheinfo', `${before.replace(' ', ',')},${path}`], top, index);
    }
    const tree = await objects.text(['write-tree'], top, index);
    if (tree === (await objects.treeOf(tip))) return undefined;
    const reverted = await objects.commitTree(tree, [tip], `dagent: take back ${nodeId} (${reason})`);
    await objects.moveRef(ref, reverted, tip);
    return reverted;
  } finally {
    await rm(index, { force: true });
  }
}

/** A path's entry in a tree-ish as `MODE BLOB`, or undefined when the tree has no file there. */
async function entryOf(objects: GitObjects, treeish: string, path: string): Promise<string | undefined> {
  const listing = await objects.text(['ls-tree', '--full-tree', treeish, '--', path]);
  const match = /^(\d{6}) blob ([0-9a-f]+)\t/.exec(listing);
  return match === null ? undefined : `${match[1]} ${match[2]}`;
}
