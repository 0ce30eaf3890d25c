import { afterEach, describe, expect, it } from 'vitest';
import { applyNodePatch, applyPatchOfNode } from '../../../engine/index.js';
import { openSnapshotHarness, snapshotRows, type SnapshotHarness } from '../snapshots/file-harness.js';

/**
 * Clone mode: the scheduler applies each succeeded node's patch to the user's workspace and records
 * it as the node's change. A scheduler killed between applying a patch and recording the node's
 * outcome leaves the patch applied; the scheduler that takes the run over applies it again, and must
 * neither fail the node nor record a change that begins after it.
 */

const harnesses: SnapshotHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.cleanup();
});

/** A git workspace and the patch of a node that turns `src/a.txt` from "one" into "two" (as a worker's clone makes it). */
async function workspaceAndPatch(): Promise<{ h: SnapshotHarness; patch: string }> {
  const h = await openSnapshotHarness({ git: true, watch: false, files: { 'src/a.txt': 'one\n', 'src/b.txt': 'bee\n' } });
  harnesses.push(h);
  h.put('src/a.txt', 'two\n');
  const patch = h.git('diff', '--binary', '--no-color');
  h.git('checkout', '-q', '--', 'src/a.txt');
  await h.startNode('edit-a');
  return { h, patch };
}

const change = (patch: string) => ({ nodeId: 'edit-a', writes: ['src/a.txt'], otherWrites: ['src/b.txt'], patch });

describe("a node's patch applied to the workspace by the scheduler", () => {
  it('is recorded as the node\'s change from where it began', async () => {
    const { h, patch } = await workspaceAndPatch();

    await applyPatchOfNode(h.snapshots, h.workspace, change(patch));

    expect(h.read('src/a.txt')).toBe('two\n');
    const rows = await snapshotRows(h.store, h.runId);
    expect(rows.map((row) => [row.node_id, row.path, row.hash_after === null ? 'no after' : 'after'])).toEqual([['edit-a', 'src/a.txt', 'after']]);
    expect(await h.snapshots.revertNode('edit-a')).toEqual({ reverted: ['src/a.txt'], conflicts: [] });
    expect(h.read('src/a.txt')).toBe('one\n');
  });

  it('already applied by a scheduler that was killed before recording it, is recorded once, from where the node began', async () => {
    const { h, patch } = await workspaceAndPatch();
    // The killed scheduler: its boundary, then the patch, then nothing more.
    await h.snapshots.beginNode('edit-a', ['src/a.txt']);
    await applyNodePatch(h.workspace, patch);

    await applyPatchOfNode(h.snapshots, h.workspace, change(patch));

    expect(h.read('src/a.txt')).toBe('two\n');
    const rows = await snapshotRows(h.store, h.runId);
    expect(rows.map((row) => [row.node_id, row.path])).toEqual([['edit-a', 'src/a.txt']]);
    // The change counts from "one": reverting the node puts it back.
    expect(await h.snapshots.revertNode('edit-a')).toEqual({ reverted: ['src/a.txt'], conflicts: [] });
    expect(h.read('src/a.txt')).toBe('one\n');
  });

  it('that applies neither way (the file was changed under the run) fails with git\'s reason and changes nothing', async () => {
    const { h, patch } = await workspaceAndPatch();
    h.put('src/a.txt', 'someone else\n');

    const failure = await applyPatchOfNode(h.snapshots, h.workspace, change(patch)).then(
      () => 'applied',
      (error: unknown) => (error as Error).message,
    );

    expect(failure).toMatch(new RegExp(`^the patch of edit-a does not apply to the workspace ${h.workspace}: error: patch failed: src/a.txt:1`));
    expect(h.read('src/a.txt')).toBe('someone else\n');
  });
});
