import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyNodePatch, applyPatchOfNode, FileSnapshots, type NodePatch, type PatchedNodeFiles } from '../../../engine/index.js';
import { openSnapshotHarness, snapshotRows, type SnapshotHarness } from '../snapshots/file-harness.js';

/**
 * Clone mode: the scheduler applies each succeeded node's patch to the user's workspace and records
 * it as the node's change. A scheduler killed before it recorded the node's outcome — after the
 * patch, or inside `git apply`, which removes the file it rewrites before writing its new content —
 * leaves the workspace part way; the scheduler that takes the run over applies the patch again,
 * and must neither fail the node nor record a change that begins after it.
 */

const harnesses: SnapshotHarness[] = [];
const opened: FileSnapshots[] = [];
afterEach(async () => {
  for (const files of opened.splice(0)) await files.close();
  for (const harness of harnesses.splice(0)) await harness.cleanup();
});

const LINES = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const text = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

/** A git workspace, and the patch a worker's clone makes of `src/a.txt` changed to `content`. */
async function workspace(): Promise<SnapshotHarness> {
  const h = await openSnapshotHarness({ git: true, files: { 'src/a.txt': text(LINES), 'src/b.txt': 'bee\n' } });
  harnesses.push(h);
  await h.startNode('edit-a');
  return h;
}

function patchOf(h: SnapshotHarness, content: string): string {
  h.put('src/a.txt', content);
  const patch = h.git('diff', '--binary', '--no-color');
  h.git('checkout', '-q', '--', 'src/a.txt');
  return patch;
}

const change = (patch: string, attempt = 1): NodePatch => ({ nodeId: 'edit-a', attempt, token: attempt, writes: ['src/a.txt'], otherWrites: ['src/b.txt'], patch });
const secondLineChanged = text(LINES.map((line) => (line === 'two' ? 'TWO' : line)));

/** The scheduler that takes the run over: another process, with snapshots of its own. */
function takerFiles(h: SnapshotHarness): FileSnapshots {
  const files = new FileSnapshots({ db: h.store.db, runId: h.runId, workspace: h.workspace });
  opened.push(files);
  return files;
}

async function expectRecordedOnceFromTheStart(h: SnapshotHarness, files: FileSnapshots): Promise<void> {
  const rows = await snapshotRows(h.store, h.runId);
  expect(rows.map((row) => [row.node_id, row.path, row.hash_after === null ? 'no after' : 'after'])).toEqual([['edit-a', 'src/a.txt', 'after']]);
  expect(await files.revertNode('edit-a')).toEqual({ reverted: ['src/a.txt'], conflicts: [] });
  expect(h.read('src/a.txt')).toBe(text(LINES));
}

describe("a node's patch applied to the workspace by the scheduler", () => {
  it("is recorded as the node's change from where it began", async () => {
    const h = await workspace();
    const patch = patchOf(h, secondLineChanged);

    await applyPatchOfNode(h.snapshots, h.log, h.workspace, change(patch));

    expect(h.read('src/a.txt')).toBe(secondLineChanged);
    await expectRecordedOnceFromTheStart(h, h.snapshots);
  });

  it('whose scheduler was killed inside git apply, with the file removed and not yet written again, is applied whole by the one that takes over', async () => {
    const h = await workspace();
    const patch = patchOf(h, secondLineChanged);
    // git apply removes every file it rewrites, then writes them: the scheduler is killed between the two.
    let killed!: () => void;
    const reached = new Promise<void>((resolve) => (killed = resolve));
    const killedInsideGitApply = async (cwd: string): Promise<void> => {
      rmSync(join(cwd, 'src/a.txt'));
      killed();
      await new Promise<never>(() => undefined);
    };
    void applyPatchOfNode(h.snapshots, h.log, h.workspace, change(patch), killedInsideGitApply);
    await reached;
    await h.snapshots.close();
    expect(h.read('src/a.txt')).toBeUndefined();

    const taker = takerFiles(h);
    await applyPatchOfNode(taker, h.log, h.workspace, change(patch));

    expect(h.read('src/a.txt')).toBe(secondLineChanged);
    await expectRecordedOnceFromTheStart(h, taker);
  });

  it('whose scheduler was killed after applying it, before recording the node, is recorded once, from where the node began', async () => {
    const h = await workspace();
    const patch = patchOf(h, secondLineChanged);
    let killed!: () => void;
    const reached = new Promise<void>((resolve) => (killed = resolve));
    const killedAfterGitApply = async (cwd: string, applied: string): Promise<void> => {
      await applyNodePatch(cwd, applied);
      killed();
      await new Promise<never>(() => undefined);
    };
    void applyPatchOfNode(h.snapshots, h.log, h.workspace, change(patch), killedAfterGitApply);
    await reached;
    await h.snapshots.close();

    const taker = takerFiles(h);
    await applyPatchOfNode(taker, h.log, h.workspace, change(patch));

    expect(h.read('src/a.txt')).toBe(secondLineChanged);
    await expectRecordedOnceFromTheStart(h, taker);
  });

  it('left in the workspace with no apply recorded (a scheduler of an earlier version) is taken out and applied once', async () => {
    const h = await workspace();
    const patch = patchOf(h, secondLineChanged);
    await h.snapshots.beginNode('edit-a', ['src/a.txt']);
    await applyNodePatch(h.workspace, patch);

    await applyPatchOfNode(h.snapshots, h.log, h.workspace, change(patch));

    expect(h.read('src/a.txt')).toBe(secondLineChanged);
    await expectRecordedOnceFromTheStart(h, h.snapshots);
  });

  it("whose end could not be recorded is taken out, so the node's next attempt, which changed another line, is all the file holds", async () => {
    const h = await workspace();
    const first = patchOf(h, secondLineChanged);
    const ninthLineChanged = text(LINES.map((line) => (line === 'nine' ? 'NINE' : line)));
    const second = patchOf(h, ninthLineChanged);
    const storeGoneAtTheEnd: PatchedNodeFiles = {
      beginNode: (nodeId, writes) => h.snapshots.beginNode(nodeId, writes),
      endNode: () => Promise.reject(new Error('the store went away')),
      restoreNode: (nodeId, boundary) => h.snapshots.restoreNode(nodeId, boundary),
    };
    const failure = await applyPatchOfNode(storeGoneAtTheEnd, h.log, h.workspace, change(first)).then(
      () => 'recorded',
      (error: unknown) => (error as Error).message,
    );
    expect(failure).toBe('the store went away');
    expect(h.read('src/a.txt')).toBe(text(LINES));
    await h.log.append({ type: 'node/retried', nodeId: 'edit-a', payload: { attempt: 1, error: 'the store went away', delayMs: 0 } });

    await applyPatchOfNode(h.snapshots, h.log, h.workspace, change(second, 2));

    expect(h.read('src/a.txt')).toBe(ninthLineChanged);
  });

  it("that applies neither way (the file was changed under the run) fails with git's reason and changes nothing", async () => {
    const h = await workspace();
    const patch = patchOf(h, secondLineChanged);
    h.put('src/a.txt', 'someone else\n');

    const failure = await applyPatchOfNode(h.snapshots, h.log, h.workspace, change(patch)).then(
      () => 'applied',
      (error: unknown) => (error as Error).message,
    );

    expect(failure).toMatch(new RegExp(`^the patch of edit-a does not apply to the workspace ${h.workspace}: error: patch failed: src/a.txt:1`));
    expect(h.read('src/a.txt')).toBe('someone else\n');
  });
});
