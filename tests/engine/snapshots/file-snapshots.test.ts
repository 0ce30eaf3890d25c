import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseNodeBoundary, type NodeBoundary } from '../../../engine/snapshots/file-node-boundary.js';
import { InvalidNodeBoundaryError } from '../../../engine/snapshots/file-snapshot-errors.js';
import { FileSnapshots } from '../../../engine/index.js';
import { openSnapshotHarness, sha256, snapshotRows, type HarnessOptions, type SnapshotHarness } from './file-harness.js';

const harnesses: SnapshotHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.cleanup();
});

async function harness(options: HarnessOptions = {}): Promise<SnapshotHarness> {
  const opened = await openSnapshotHarness(options);
  harnesses.push(opened);
  return opened;
}

/** A boundary as the RunController gets it back from the log. */
function throughTheLog(boundary: NodeBoundary): unknown {
  return JSON.parse(JSON.stringify(boundary));
}

describe('FileSnapshots write scope', () => {
  it('refuses a file outside the node\'s writes and points the model at report_missing_work', async () => {
    const h = await harness();
    const scope = h.snapshots.writeScopeFor('edit-a', ['src/a.ts', 'src/b/*.ts']);
    expect(scope.check('src/a.ts')).toBeUndefined();
    expect(scope.check('src/b/c.ts')).toBeUndefined();
    expect(scope.check('src/e.ts')).toBe(
      '"src/e.ts" is outside this node\'s write set (src/a.ts, src/b/*.ts). If the plan missed this file, call report_missing_work with the file and the reason.',
    );
    expect(scope.check('src/b/deep/c.ts')).toMatch(/^"src\/b\/deep\/c.ts" is outside/);
    expect(h.snapshots.writeScopeFor('read', []).check('x.ts')).toBe(
      '"x.ts" is outside this node\'s write set (none). If the plan missed this file, call report_missing_work with the file and the reason.',
    );
  });

  it("asks before recording a node's end only when there is something to record", async () => {
    const h = await harness({ files: { 'src/a.ts': 'original\n', 'notes.md': 'read me\n' } });
    const asked: string[] = [];
    await h.startNode('read-notes');
    const reading = await h.snapshots.beginNode('read-notes', []);
    const readEnd = await h.snapshots.endNode('read-notes', [], throughTheLog(reading), { beforeRecording: async () => void asked.push('read-notes') });
    await h.startNode('edit-a');
    const editing = await h.snapshots.beginNode('edit-a', ['src/a.ts']);
    await h.toolWrite(h.snapshots.writeScopeFor('edit-a', ['src/a.ts']), 'src/a.ts', 'edited\n');
    const editEnd = await h.snapshots.endNode('edit-a', ['src/a.ts'], throughTheLog(editing), {
      beforeRecording: async () => {
        asked.push('edit-a');
        // A worker whose claim was taken over stops here: nothing of its end is recorded.
        throw new Error('claim lost');
      },
    }).catch((error: unknown) => (error as Error).message);

    expect(readEnd).toEqual({ filesChanged: [], strayChanges: [] });
    expect(editEnd).toBe('claim lost');
    expect(asked).toEqual(['edit-a']);
    expect((await snapshotRows(h.store, h.runId)).map((row) => [row.node_id, row.content_after])).toEqual([['edit-a', null]]);
  });

  it("checks an edit node's claim beside the read of its snapshots, not after it", async () => {
    const h = await harness({ watch: false, files: { 'src/a.ts': 'original\n' } });
    const order: string[] = [];
    const watching = h.store.db.withPlugin({
      transformQuery: (args) => {
        if (args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node.from).includes('file_snapshots')) order.push('snapshots read');
        return args.node;
      },
      transformResult: async (args) => {
        if (order.at(-1) === 'snapshots read') order.push('snapshots back');
        return args.result;
      },
    });
    const snapshots = new FileSnapshots({ db: watching, runId: h.runId, workspace: h.workspace, watch: false });
    await h.startNode('edit-a');
    const editing = await snapshots.beginNode('edit-a', ['src/a.ts']);
    await h.toolWrite(snapshots.writeScopeFor('edit-a', ['src/a.ts']), 'src/a.ts', 'edited\n');
    order.length = 0;

    const end = await snapshots.endNode('edit-a', ['src/a.ts'], throughTheLog(editing), { beforeRecording: async () => void order.push('claim checked') });

    expect(end.filesChanged).toEqual(['src/a.ts']);
    expect(order.slice(0, 3)).toEqual(['claim checked', 'snapshots read', 'snapshots back']);
  });

  it("ends a read node's first attempt that changed nothing without reading the store, and still records one that did", async () => {
    const h = await harness({ git: true, watch: false, files: { 'notes.md': 'read me\n' } });
    const selects: string[] = [];
    const counting = h.store.db.withPlugin({
      transformQuery: (args) => {
        if (args.node.kind === 'SelectQueryNode') selects.push(JSON.stringify(args.node.from));
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const snapshots = new FileSnapshots({ db: counting, runId: h.runId, workspace: h.workspace, watch: false });
    await h.startNode('read-notes');
    const quiet = await snapshots.beginNode('read-notes', []);
    const quietEnd = await snapshots.endNode('read-notes', [], throughTheLog(quiet), { firstAttempt: true });
    const readsOfQuietEnd = selects.filter((from) => from.includes('file_snapshots')).length;
    await h.startNode('read-and-scribble');
    const scribbling = await snapshots.beginNode('read-and-scribble', []);
    h.put('scratch.txt', 'left behind\n');
    const scribbleEnd = await snapshots.endNode('read-and-scribble', [], throughTheLog(scribbling), { firstAttempt: true });

    expect(quietEnd).toEqual({ filesChanged: [], strayChanges: [] });
    expect(readsOfQuietEnd).toBe(0);
    expect(scribbleEnd).toEqual({ filesChanged: ['scratch.txt'], strayChanges: ['scratch.txt'] });
    expect((await snapshotRows(h.store, h.runId)).map((row) => [row.node_id, row.path])).toEqual([['read-and-scribble', 'scratch.txt']]);
  });

  it('takes the before-snapshot once: across two writes and across a retry', async () => {
    const h = await harness({ files: { 'src/a.ts': 'original\n' } });
    await h.startNode('edit-a');
    const first = await h.snapshots.beginNode('edit-a', ['src/a.ts']);
    const scope = h.snapshots.writeScopeFor('edit-a', ['src/a.ts']);
    await h.toolWrite(scope, 'src/a.ts', 'first write\n');
    await h.toolWrite(scope, 'src/a.ts', 'second write\n');
    expect(await h.snapshots.endNode('edit-a', ['src/a.ts'], throughTheLog(first))).toEqual({ filesChanged: ['src/a.ts'], strayChanges: [] });

    // the attempt failed: the retry starts from the files the node found
    expect(await h.snapshots.restoreNode('edit-a', throughTheLog(first))).toEqual(['src/a.ts']);
    expect(h.read('src/a.ts')).toBe('original\n');
    await h.startNode('edit-a', 2);
    const second = await h.snapshots.beginNode('edit-a', ['src/a.ts']);
    await h.toolWrite(h.snapshots.writeScopeFor('edit-a', ['src/a.ts']), 'src/a.ts', 'retried\n');
    await h.snapshots.endNode('edit-a', ['src/a.ts'], second);

    const rows = await snapshotRows(h.store, h.runId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      node_id: 'edit-a',
      path: 'src/a.ts',
      content_before: 'original\n',
      hash_before: sha256(Buffer.from('original\n')),
      content_after: 'retried\n',
      hash_after: sha256(Buffer.from('retried\n')),
      encoding: 'utf8',
      created_at: expect.stringMatching(/^2025-01-01T/),
    });
  });

  it('records a file the node creates as absent before', async () => {
    const h = await harness();
    const boundary = await h.snapshots.beginNode('edit-a', ['src/**']);
    await h.toolWrite(h.snapshots.writeScopeFor('edit-a', ['src/**']), 'src/new.ts', 'export {};\n');
    expect((await h.snapshots.endNode('edit-a', ['src/**'], boundary)).filesChanged).toEqual(['src/new.ts']);
    expect((await snapshotRows(h.store, h.runId))[0]).toMatchObject({ path: 'src/new.ts', content_before: null, hash_before: null, content_after: 'export {};\n' });
  });
});

describe('FileSnapshots at node boundaries', () => {
  it.each([
    ['watching the workspace', true, 'watch'],
    ['scanning the whole working copy', false, 'git'],
  ])('finds a change made by a command in a git workspace %s, with its content before from the boundary', async (_name, watch, kind) => {
    const h = await harness({ git: true, watch, files: { 'src/a.ts': 'export const a = 1;\n', 'README.md': 'hello\n' } });
    const boundary = await h.snapshots.beginNode('format', ['src/*.ts']);
    expect(boundary).toMatchObject({ kind, writes: ['src/*.ts'], folders: ['src'] });
    h.put('src/a.ts', 'export const a = 2;\n');
    h.put('src/b.ts', 'export const b = 1;\n');

    expect(await h.snapshots.endNode('format', ['src/*.ts'], throughTheLog(boundary))).toEqual({ filesChanged: ['src/a.ts', 'src/b.ts'], strayChanges: [] });
    const rows = await snapshotRows(h.store, h.runId);
    expect(rows.map((row) => [row.path, row.content_before, row.content_after])).toEqual([
      ['src/a.ts', 'export const a = 1;\n', 'export const a = 2;\n'],
      ['src/b.ts', null, 'export const b = 1;\n'],
    ]);
  });

  it('finds a change made by a command in a workspace without git, within the write set', async () => {
    const h = await harness({ files: { 'src/a.ts': 'one\n', 'docs/notes.md': 'notes\n' } });
    const boundary = await h.snapshots.beginNode('format', ['src/**']);
    expect(boundary).toEqual({ kind: 'scan', writes: ['src/**'], files: { 'src/a.ts': sha256(Buffer.from('one\n')) }, folders: ['src'] });
    h.put('src/a.ts', 'two\n');
    h.put('src/lib/b.ts', 'new\n');
    h.put('docs/notes.md', 'changed outside the write set\n');

    expect(await h.snapshots.endNode('format', ['src/**'], throughTheLog(boundary))).toEqual({ filesChanged: ['src/a.ts', 'src/lib/b.ts'], strayChanges: [] });
    const rows = await snapshotRows(h.store, h.runId);
    expect(rows.map((row) => [row.path, row.content_before, row.content_after])).toEqual([
      ['src/a.ts', 'one\n', 'two\n'],
      ['src/lib/b.ts', null, 'new\n'],
    ]);
  });

  it('does not attribute a sibling\'s change to a node, and records changes outside every write set as stray', async () => {
    const h = await harness({ git: true, files: { 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' } });
    const boundaryA = await h.snapshots.beginNode('edit-a', ['src/a.ts']);
    const boundaryB = await h.snapshots.beginNode('edit-b', ['src/b.ts']);
    await h.toolWrite(h.snapshots.writeScopeFor('edit-b', ['src/b.ts']), 'src/b.ts', 'b changed by edit-b\n');
    h.put('src/a.ts', 'a changed by a command of edit-a\n');
    h.put('build/out.js', 'a build artefact\n');

    const endA = await h.snapshots.endNode('edit-a', ['src/a.ts'], boundaryA, { otherWrites: ['src/b.ts'] });
    const endB = await h.snapshots.endNode('edit-b', ['src/b.ts'], boundaryB, { otherWrites: ['src/a.ts'] });
    expect(endA).toEqual({ filesChanged: ['build/out.js', 'src/a.ts'], strayChanges: ['build/out.js'] });
    expect(endB).toEqual({ filesChanged: ['build/out.js', 'src/b.ts'], strayChanges: ['build/out.js'] });
    expect((await snapshotRows(h.store, h.runId)).map((row) => [row.node_id, row.path, row.content_before])).toEqual([
      ['edit-a', 'build/out.js', null],
      ['edit-a', 'src/a.ts', 'a\n'],
      ['edit-b', 'build/out.js', null],
      ['edit-b', 'src/b.ts', 'b\n'],
    ]);
  });

  it('forgets a file that ended as it began', async () => {
    const h = await harness({ files: { 'src/a.ts': 'same\n' } });
    const boundary = await h.snapshots.beginNode('edit-a', ['src/a.ts']);
    const scope = h.snapshots.writeScopeFor('edit-a', ['src/a.ts']);
    await h.toolWrite(scope, 'src/a.ts', 'different\n');
    await h.toolWrite(scope, 'src/a.ts', 'same\n');
    expect((await h.snapshots.endNode('edit-a', ['src/a.ts'], boundary)).filesChanged).toEqual([]);
    expect(await snapshotRows(h.store, h.runId)).toEqual([]);
  });

  it.each([
    ['a git workspace', true],
    ['a workspace without git', false],
  ])('restores a crashed node in %s: edits undone, created files and their folders deleted', async (_name, git) => {
    const h = await harness({ git, files: { 'src/a.ts': 'original\n', 'src/keep.ts': 'kept\n' } });
    const writes = ['src/**'];
    const boundary = throughTheLog(await h.snapshots.beginNode('edit-a', writes));
    await h.toolWrite(h.snapshots.writeScopeFor('edit-a', writes), 'src/a.ts', 'half done\n');
    h.put('src/gen/new.ts', 'generated by a command\n');
    h.put('src/keep.ts', 'changed by a command\n');
    // the process dies here: no endNode

    expect(await h.snapshots.restoreNode('edit-a', boundary)).toEqual(['src/a.ts', 'src/gen/new.ts', 'src/keep.ts']);
    expect(h.read('src/a.ts')).toBe('original\n');
    expect(h.read('src/keep.ts')).toBe('kept\n');
    expect(existsSync(join(h.workspace, 'src/gen'))).toBe(false);
    expect(await h.snapshots.restoreNode('edit-a', boundary)).toEqual([]);
  });

  it('keeps binary content byte for byte (base64), also when a text file becomes binary', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
    const h = await harness({ files: { 'assets/logo.png': png, 'assets/data.bin': 'text for now\n' } });
    const writes = ['assets/*'];
    const boundary = await h.snapshots.beginNode('images', writes);
    const scope = h.snapshots.writeScopeFor('images', writes);
    await h.toolWrite(scope, 'assets/logo.png', Buffer.from([0x00, 0x01, 0x02]));
    await h.toolWrite(scope, 'assets/data.bin', Buffer.from([0xc3, 0x28]));
    await h.snapshots.endNode('images', writes, boundary);

    const rows = await snapshotRows(h.store, h.runId);
    expect(rows.map((row) => [row.path, row.encoding, row.content_before, row.content_after])).toEqual([
      ['assets/data.bin', 'base64', Buffer.from('text for now\n').toString('base64'), 'wyg='],
      ['assets/logo.png', 'base64', png.toString('base64'), 'AAEC'],
    ]);
    expect(await h.snapshots.restoreNode('images', boundary)).toEqual(['assets/data.bin', 'assets/logo.png']);
    expect(h.readBytes('assets/logo.png')).toEqual(png);
    expect(h.read('assets/data.bin')).toBe('text for now\n');
  });

  it('records a large file a command rewrote, byte for byte, and leaves no watch barriers behind', async () => {
    const before = Buffer.alloc(300 * 1024, 'a');
    const after = Buffer.concat([before, Buffer.from('one more line\n')]);
    const h = await harness({ git: true, files: { 'data/big.txt': before, 'README.md': 'hello\n' } });
    await h.startNode('grow');
    const boundary = await h.snapshots.beginNode('grow', ['data/big.txt']);
    h.put('data/big.txt', after);
    h.put('README.md', 'hello again\n');
    expect(await h.snapshots.endNode('grow', ['data/big.txt'], throughTheLog(boundary))).toEqual({ filesChanged: ['README.md', 'data/big.txt'], strayChanges: ['README.md'] });

    const big = (await snapshotRows(h.store, h.runId)).find((row) => row.path === 'data/big.txt');
    expect([big?.content_before?.length, big?.content_after]).toEqual([before.length, after.toString('utf8')]);
    expect(readdirSync(join(h.workspace, '.dagent', 'watch'))).toEqual([]);
  });

  it('sees a file replaced by a folder, and a new folder\'s files, in a watched git workspace', async () => {
    const h = await harness({ git: true, files: { 'out/report': 'old report\n', 'src/a.ts': 'a\n' } });
    await h.startNode('reshape');
    const boundary = await h.snapshots.beginNode('reshape', ['out/**', 'gen/**']);
    rmSync(join(h.workspace, 'out', 'report'));
    h.put('out/report/index.md', 'new report\n');
    h.put('gen/deep/x.ts', 'x\n');
    const end = await h.snapshots.endNode('reshape', ['out/**', 'gen/**'], throughTheLog(boundary));
    expect(end).toEqual({ filesChanged: ['gen/deep/x.ts', 'out/report', 'out/report/index.md'], strayChanges: [] });
  });

  it('restores files git checks out through a filter (eol=crlf) byte for byte, several in one node', async () => {
    const h = await harness({ git: true, files: { '.gitattributes': '*.txt eol=crlf\n', 'a.txt': 'one\ntwo\n', 'b.txt': 'three\n', 'c d.txt': 'four\n' } });
    for (const file of ['a.txt', 'b.txt', 'c d.txt']) rmSync(join(h.workspace, file));
    h.git('checkout', '--', '.');
    expect(h.read('a.txt')).toBe('one\r\ntwo\r\n');
    await h.startNode('rewrite');
    const boundary = await h.snapshots.beginNode('rewrite', ['*.txt']);
    for (const file of ['a.txt', 'b.txt', 'c d.txt']) h.put(file, 'rewritten\n');
    await h.snapshots.endNode('rewrite', ['*.txt'], throughTheLog(boundary));

    expect(await h.snapshots.restoreNode('rewrite', throughTheLog(boundary))).toEqual(['a.txt', 'b.txt', 'c d.txt']);
    expect([h.read('a.txt'), h.read('b.txt'), h.read('c d.txt')]).toEqual(['one\r\ntwo\r\n', 'three\r\n', 'four\r\n']);
  });

  it('never touches the user\'s git index, HEAD or refs', async () => {
    const h = await harness({ git: true, files: { 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', '.gitignore': 'dist/\n' } });
    h.put('src/b.ts', 'b staged by the user\n');
    h.git('add', 'src/b.ts');
    h.put('notes.txt', 'untracked\n');
    h.put('.dagent/config.json', '{}\n'); // dagent's own folder exists beside the database anyway
    const before = {
      status: h.git('status', '--porcelain'),
      head: h.git('rev-parse', 'HEAD'),
      refs: h.git('for-each-ref'),
      index: sha256(readFileSync(join(h.workspace, '.git/index'))),
    };

    const writes = ['src/a.ts', 'dist/**'];
    const boundary = await h.snapshots.beginNode('edit-a', writes);
    await h.toolWrite(h.snapshots.writeScopeFor('edit-a', writes), 'src/a.ts', 'a edited\n');
    h.put('dist/a.js', 'ignored output\n');
    expect((await h.snapshots.endNode('edit-a', writes, boundary)).filesChanged).toEqual(['src/a.ts']);
    await h.snapshots.restoreNode('edit-a', boundary);

    expect({
      status: h.git('status', '--porcelain'),
      head: h.git('rev-parse', 'HEAD'),
      refs: h.git('for-each-ref'),
      index: sha256(readFileSync(join(h.workspace, '.git/index'))),
    }).toEqual(before);
    expect(existsSync(join(h.workspace, '.dagent/git-snapshots/index'))).toBe(true);
  });

  it('refuses a boundary it did not write', async () => {
    const h = await harness();
    await expect(h.snapshots.endNode('edit-a', [], { kind: 'git', tree: 'HEAD' })).rejects.toBeInstanceOf(InvalidNodeBoundaryError);
    expect(() => parseNodeBoundary({ kind: 'scan', writes: ['a'], files: {} })).not.toThrow();
  });
});
