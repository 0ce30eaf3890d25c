import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NothingToDiffError, diffRun } from '../../../engine/index.js';
import { UnknownNodeError, UnknownRunError } from '../../../engine/errors.js';
import { fileDiff, renderUnifiedDiff } from '../../../engine/snapshots/file-diff-render.js';
import { WorkspaceMissingError } from '../../../engine/snapshots/file-snapshot-errors.js';
import { ABSENT_FILE, fileStateOf, type FileState } from '../../../engine/snapshots/file-state.js';
import { gitIn, openSnapshotHarness, type SnapshotHarness } from './file-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

const harnesses: SnapshotHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.cleanup();
});

const SHAPE = 'export interface Shape {\n  area(): number;\n}\n';

/** SPEC §2.1 in small: edit-a renames the method in the interface; edit-b adds a square and touches the interface again. */
async function refactorRun(): Promise<SnapshotHarness> {
  const h = await openSnapshotHarness({ files: { 'src/shape.ts': SHAPE } });
  harnesses.push(h);
  await h.startNode('edit-a');
  const a = await h.snapshots.beginNode('edit-a', ['src/shape.ts']);
  await h.toolWrite(h.snapshots.writeScopeFor('edit-a', ['src/shape.ts']), 'src/shape.ts', 'export interface Shape {\n  getArea(): number;\n}\n');
  await h.snapshots.endNode('edit-a', ['src/shape.ts'], a);

  await h.startNode('edit-b');
  const writes = ['src/shape.ts', 'src/square.ts'];
  const b = await h.snapshots.beginNode('edit-b', writes);
  const scope = h.snapshots.writeScopeFor('edit-b', writes);
  await h.toolWrite(scope, 'src/square.ts', 'export const side = 2;\n');
  await h.toolWrite(scope, 'src/shape.ts', 'export interface Shape {\n  getArea(): number;\n  name: string;\n}\n');
  await h.snapshots.endNode('edit-b', writes, b);
  return h;
}

describe('diffRun', () => {
  it('diffs one node: its content before to its content after', async () => {
    const h = await refactorRun();
    const diff = await diffRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a' });
    expect(diff.files.map((file) => [file.path, file.change, file.content, file.nodeIds])).toEqual([['src/shape.ts', 'modified', 'text', ['edit-a']]]);
    expect(renderUnifiedDiff(diff)).toBe(
      [
        'diff --git a/src/shape.ts b/src/shape.ts',
        '--- a/src/shape.ts',
        '+++ b/src/shape.ts',
        '@@ -1,3 +1,3 @@',
        ' export interface Shape {',
        '-  area(): number;',
        '+  getArea(): number;',
        ' }',
        '',
      ].join('\n'),
    );
  });

  it('diffs the whole run: each file from before its first node to now', async () => {
    const h = await refactorRun();
    const diff = await diffRun(h.store.db, h.runId, h.workspace);
    expect(diff.files.map((file) => [file.path, file.change, file.nodeIds])).toEqual([
      ['src/shape.ts', 'modified', ['edit-a', 'edit-b']],
      ['src/square.ts', 'added', ['edit-b']],
    ]);
    expect(renderUnifiedDiff(diff)).toBe(
      [
        'diff --git a/src/shape.ts b/src/shape.ts',
        '--- a/src/shape.ts',
        '+++ b/src/shape.ts',
        '@@ -1,3 +1,4 @@',
        ' export interface Shape {',
        '-  area(): number;',
        '+  getArea(): number;',
        '+  name: string;',
        ' }',
        'diff --git a/src/square.ts b/src/square.ts',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/src/square.ts',
        '@@ -0,0 +1,1 @@',
        '+export const side = 2;',
        '',
      ].join('\n'),
    );
  });

  it('renders a patch git can apply to the files as they were before the run', async () => {
    const h = await refactorRun();
    const patch = renderUnifiedDiff(await diffRun(h.store.db, h.runId, h.workspace));
    const copy = tempDir('dagent-apply-');
    try {
      mkdirSync(join(copy.dir, 'src'));
      writeFileSync(join(copy.dir, 'src/shape.ts'), SHAPE);
      writeFileSync(join(copy.dir, 'run.patch'), patch);
      gitIn(copy.dir, ['apply', 'run.patch']);
      expect(readFileSync(join(copy.dir, 'src/shape.ts'), 'utf8')).toBe(h.read('src/shape.ts'));
      expect(readFileSync(join(copy.dir, 'src/square.ts'), 'utf8')).toBe(h.read('src/square.ts'));
    } finally {
      copy.cleanup();
    }
  });

  it('says clearly what is wrong: unknown run, unknown node, nothing to diff, missing workspace', async () => {
    const h = await refactorRun();
    await h.startNode('test');
    await expect(diffRun(h.store.db, 'r-nope', h.workspace)).rejects.toBeInstanceOf(UnknownRunError);
    await expect(diffRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-z' })).rejects.toBeInstanceOf(UnknownNodeError);
    const nothing = await diffRun(h.store.db, h.runId, h.workspace, { nodeId: 'test' }).catch((error: unknown) => error);
    expect(nothing).toBeInstanceOf(NothingToDiffError);
    expect((nothing as Error).message).toBe(`node "test" of run ${h.runId} changed no files: nothing to diff (\`dagent diff ${h.runId}\` shows the whole run)`);
    rmSync(h.workspace, { recursive: true, force: true });
    await expect(diffRun(h.store.db, h.runId, h.workspace)).rejects.toBeInstanceOf(WorkspaceMissingError);
    // a finished node's diff needs only the database
    expect((await diffRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a' })).files).toHaveLength(1);
  });
});

describe('fileDiff', () => {
  const text = (value: string): FileState => fileStateOf(Buffer.from(value));
  it.each<[string, FileState, FileState, string | undefined]>([
    ['same content', text('a\n'), text('a\n'), undefined],
    ['added', ABSENT_FILE, text('a\n'), 'diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+a\n'],
    ['deleted', text('a\n'), ABSENT_FILE, 'diff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n'],
    ['no newline at the end', text('a'), text('b'), 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n'],
    ['binary', fileStateOf(Buffer.from([0, 1])), fileStateOf(Buffer.from([0, 2])), 'diff --git a/f b/f\nBinary files a/f and b/f differ\n'],
    ['not recorded', { kind: 'unrecorded', hash: 'h' }, text('a\n'), 'diff --git a/f b/f\nContent not shown: it was not recorded (larger than the snapshot limit)\n'],
  ])('%s', (_name, before, after, expected) => {
    const diff = fileDiff('f', before, after, ['n']);
    expect(diff === undefined ? undefined : renderUnifiedDiff({ runId: 'r', nodeId: null, files: [diff] })).toBe(expected);
  });
});
