import { afterEach, describe, expect, it } from 'vitest';
import { readEvents, revertRun } from '../../../engine/index.js';
import { revertStep, type RevertStep } from '../../../engine/snapshots/file-revert-step.js';
import { ABSENT_FILE, fileStateOf, type FileState } from '../../../engine/snapshots/file-state.js';
import { openSnapshotHarness, type SnapshotHarness } from './file-harness.js';

const harnesses: SnapshotHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.cleanup();
});

async function harness(files: Record<string, string>): Promise<SnapshotHarness> {
  const opened = await openSnapshotHarness({ files });
  harnesses.push(opened);
  return opened;
}

/** Runs one node whose tool writes `files`. */
async function runNode(h: SnapshotHarness, nodeId: string, writes: readonly string[], files: Record<string, string>): Promise<void> {
  await h.startNode(nodeId);
  const boundary = await h.snapshots.beginNode(nodeId, writes);
  const scope = h.snapshots.writeScopeFor(nodeId, writes);
  for (const [path, content] of Object.entries(files)) await h.toolWrite(scope, path, content);
  await h.snapshots.endNode(nodeId, writes, boundary);
}

const LINES = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
const file = (lines: readonly string[]): string => `${lines.join('\n')}\n`;
const withLine = (lines: readonly string[], index: number, text: string): string[] => lines.map((line, at) => (at === index ? text : line));

async function revertedEvents(h: SnapshotHarness) {
  return (await readEvents(h.store.db, h.runId, { types: ['file/reverted'] })).map((event) => event.payload);
}

describe('revertRun', () => {
  it('reverts a whole run: every file to its content before the first node that changed it, created files deleted', async () => {
    const h = await harness({ 'src/shape.ts': 'area\n', 'src/circle.ts': 'circle\n' });
    await runNode(h, 'edit-a', ['src/shape.ts'], { 'src/shape.ts': 'getArea\n' });
    await runNode(h, 'edit-b', ['src/*.ts'], { 'src/shape.ts': 'getArea()\n', 'src/square.ts': 'square\n', 'src/circle.ts': 'round\n' });

    const outcome = await revertRun(h.store.db, h.runId, h.workspace, { log: h.log });
    expect(outcome).toEqual({
      runId: h.runId,
      nodeId: null,
      restored: [
        { path: 'src/circle.ts', action: 'restored', nodeId: 'edit-b' },
        { path: 'src/shape.ts', action: 'restored', nodeId: 'edit-a' },
        { path: 'src/square.ts', action: 'deleted', nodeId: 'edit-b' },
      ],
      conflicted: [],
      unchanged: [],
    });
    expect([h.read('src/shape.ts'), h.read('src/circle.ts'), h.read('src/square.ts')]).toEqual(['area\n', 'circle\n', undefined]);
    expect(await revertedEvents(h)).toEqual([
      { path: 'src/circle.ts', node: 'edit-b', scope: 'run', action: 'restored', forced: false },
      { path: 'src/shape.ts', node: 'edit-a', scope: 'run', action: 'restored', forced: false },
      { path: 'src/square.ts', node: 'edit-b', scope: 'run', action: 'deleted', forced: false },
    ]);

    const again = await revertRun(h.store.db, h.runId, h.workspace, { log: h.log });
    expect(again.unchanged).toEqual(['src/circle.ts', 'src/shape.ts', 'src/square.ts']);
    expect(again.restored).toEqual([]);
  });

  it('reverts one node and keeps a later node\'s edit in another hunk of the same file', async () => {
    const h = await harness({ 'src/big.ts': file(LINES) });
    await runNode(h, 'edit-a', ['src/big.ts'], { 'src/big.ts': file(withLine(LINES, 1, 'line 2 by edit-a')) });
    await runNode(h, 'edit-b', ['src/big.ts'], { 'src/big.ts': file(withLine(withLine(LINES, 1, 'line 2 by edit-a'), 17, 'line 18 by edit-b')) });

    const outcome = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a', log: h.log });
    expect(outcome.restored).toEqual([{ path: 'src/big.ts', action: 'patched', nodeId: 'edit-a' }]);
    expect(h.read('src/big.ts')).toBe(file(withLine(LINES, 17, 'line 18 by edit-b')));
    expect(await revertedEvents(h)).toEqual([{ path: 'src/big.ts', node: 'edit-a', scope: 'node', action: 'patched', forced: false }]);
  });

  it('reverts one node whose line a later node edited right next to, and keeps that edit', async () => {
    const h = await harness({ 'src/big.ts': file(LINES) });
    const afterA = withLine(LINES, 1, 'line 2 by edit-a');
    await runNode(h, 'edit-a', ['src/big.ts'], { 'src/big.ts': file(afterA) });
    await runNode(h, 'edit-b', ['src/big.ts'], { 'src/big.ts': file(withLine(afterA, 2, 'line 3 by edit-b')) });

    const outcome = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a', log: h.log });

    expect(outcome).toMatchObject({ restored: [{ path: 'src/big.ts', action: 'patched', nodeId: 'edit-a' }], conflicted: [] });
    expect(h.read('src/big.ts')).toBe(file(withLine(LINES, 2, 'line 3 by edit-b')));
  });

  it('reports a conflict and leaves the file alone; with force, writes the content before the node', async () => {
    const h = await harness({ 'src/big.ts': file(LINES) });
    await runNode(h, 'edit-a', ['src/big.ts'], { 'src/big.ts': file(withLine(LINES, 1, 'line 2 by edit-a')) });
    const edited = file(withLine(LINES, 1, 'line 2 rewritten by the user'));
    h.put('src/big.ts', edited);

    const refused = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a', log: h.log });
    expect(refused).toMatchObject({
      restored: [],
      conflicted: [{ path: 'src/big.ts', nodeId: 'edit-a', reason: 'the file has changed since in the lines the change touched', remedy: 'force' }],
    });
    expect(h.read('src/big.ts')).toBe(edited);
    expect(await revertedEvents(h)).toEqual([]);

    const forced = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a', force: true, log: h.log });
    expect(forced).toMatchObject({ restored: [{ path: 'src/big.ts', action: 'restored' }], conflicted: [] });
    expect(h.read('src/big.ts')).toBe(file(LINES));
    expect(await revertedEvents(h)).toEqual([{ path: 'src/big.ts', node: 'edit-a', scope: 'node', action: 'restored', forced: true }]);
  });

  it('reverts binary files byte for byte', async () => {
    const h = await harness({});
    const before = Buffer.from([0x00, 0x10, 0xff, 0x80]);
    h.put('img.bin', before);
    await h.startNode('paint');
    const boundary = await h.snapshots.beginNode('paint', ['img.bin']);
    await h.toolWrite(h.snapshots.writeScopeFor('paint', ['img.bin']), 'img.bin', Buffer.from([0x01, 0x02]));
    await h.snapshots.endNode('paint', ['img.bin'], boundary);

    expect((await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'paint', log: h.log })).restored).toEqual([
      { path: 'img.bin', action: 'restored', nodeId: 'paint' },
    ]);
    expect(h.readBytes('img.bin')).toEqual(before);
  });

  it('on a dry run, reports what it would do without writing a file or appending an event', async () => {
    const h = await harness({ 'src/shape.ts': 'area\n', 'src/big.ts': file(LINES) });
    await runNode(h, 'edit-a', ['src/shape.ts', 'src/big.ts', 'src/square.ts'], {
      'src/shape.ts': 'getArea\n',
      'src/big.ts': file(withLine(LINES, 1, 'line 2 by edit-a')),
      'src/square.ts': 'square\n',
    });
    h.put('src/big.ts', file(withLine(LINES, 1, 'line 2 rewritten by the user')));
    const before = [h.read('src/shape.ts'), h.read('src/big.ts'), h.read('src/square.ts')];

    const planned = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a', dryRun: true, log: h.log });
    expect(planned).toEqual({
      runId: h.runId,
      nodeId: 'edit-a',
      restored: [
        { path: 'src/shape.ts', action: 'restored', nodeId: 'edit-a' },
        { path: 'src/square.ts', action: 'deleted', nodeId: 'edit-a' },
      ],
      conflicted: [{ path: 'src/big.ts', nodeId: 'edit-a', reason: 'the file has changed since in the lines the change touched', remedy: 'force' }],
      unchanged: [],
    });
    expect([h.read('src/shape.ts'), h.read('src/big.ts'), h.read('src/square.ts')]).toEqual(before);
    expect(await revertedEvents(h)).toEqual([]);

    const forced = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a', dryRun: true, force: true, log: h.log });
    expect(forced.conflicted).toEqual([]);
    expect(forced.restored.map((item) => [item.path, item.action])).toContainEqual(['src/big.ts', 'restored']);
    expect([h.read('src/shape.ts'), h.read('src/big.ts'), h.read('src/square.ts')]).toEqual(before);

    const real = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'edit-a', log: h.log });
    expect({ restored: real.restored, conflicted: real.conflicted }).toEqual({ restored: planned.restored, conflicted: planned.conflicted });
  });

  it('returns an empty outcome for a run that changed nothing', async () => {
    const h = await harness({});
    expect(await revertRun(h.store.db, h.runId, h.workspace, { log: h.log })).toEqual({ runId: h.runId, nodeId: null, restored: [], conflicted: [], unchanged: [] });
  });
});

describe('revertStep', () => {
  const text = (value: string): FileState => fileStateOf(Buffer.from(value));
  const bytes = (step: RevertStep): unknown => ('bytes' in step ? { ...step, bytes: step.bytes.toString('utf8') } : step);
  it.each<[string, FileState, FileState | undefined, FileState, boolean, unknown]>([
    ['already as before', text('a\n'), text('b\n'), text('a\n'), false, { action: 'unchanged' }],
    ['still as the change left it', text('a\n'), text('b\n'), text('b\n'), false, { action: 'restore', bytes: 'a\n' }],
    ['after not recorded: taken as now', text('a\n'), undefined, text('c\n'), false, { action: 'restore', bytes: 'a\n' }],
    ['created, unchanged since', ABSENT_FILE, text('b\n'), text('b\n'), false, { action: 'delete' }],
    ['created, edited since', ABSENT_FILE, text('b\n'), text('c\n'), false, { action: 'conflict', reason: 'the file was created by the change and has been edited since' }],
    ['created, edited since, forced: over the edits made since', ABSENT_FILE, text('b\n'), text('c\n'), true, { action: 'delete', overwrites: true }],
    ['deleted, still gone', text('a\n'), ABSENT_FILE, ABSENT_FILE, false, { action: 'restore', bytes: 'a\n' }],
    ['deleted, re-created since', text('a\n'), ABSENT_FILE, text('c\n'), false, { action: 'conflict', reason: 'the file was deleted by the change and has been re-created since' }],
    ['edited since, deleted since', text('a\n'), text('b\n'), ABSENT_FILE, false, { action: 'conflict', reason: 'the file has been deleted since' }],
    ['binary, changed since', fileStateOf(Buffer.from([0])), fileStateOf(Buffer.from([1])), fileStateOf(Buffer.from([2])), false, { action: 'conflict', reason: 'the binary file has changed since' }],
    ['before not recorded, forced: still left, and it says force cannot help', { kind: 'unrecorded', hash: 'x' }, text('b\n'), text('b\n'), true, { action: 'conflict', reason: 'its content before was not recorded (larger than the snapshot limit), so it cannot be put back: left as it is', unrestorable: true }],
  ])('%s', (_name, target, changedTo, current, force, expected) => {
    expect(bytes(revertStep({ target, changedTo, current, force }))).toEqual(expected);
  });
});

describe('a file that held a secret', () => {
  // A fake token in a common shape: the store redacts it from the snapshot it keeps.
  const TOKEN = 'ghp_FAKEfakeFAKEfake0123456789abcdefABCD';
  const before = `GITHUB_TOKEN=${TOKEN}\nMODE=dev\n`;
  const after = `GITHUB_TOKEN=${TOKEN}\nMODE=prod\n`;

  it('is never written back with [REDACTED] in the key\'s place: revert, even forced, leaves it as it is and says why', async () => {
    const h = await harness({ 'settings.env': before, 'src/a.ts': 'a\n' });
    await runNode(h, 'edit', ['settings.env', 'src/a.ts'], { 'settings.env': after, 'src/a.ts': 'b\n' });

    for (const force of [false, true]) {
      const outcome = await revertRun(h.store.db, h.runId, h.workspace, { log: h.log, force });
      expect(outcome.conflicted).toEqual([{ path: 'settings.env', nodeId: 'edit', reason: expect.stringContaining('held a secret'), remedy: 'none' }]);
      expect(h.read('settings.env')).toBe(after);
    }
    // The other file of the node is reverted as usual.
    expect(h.read('src/a.ts')).toBe('a\n');
  });

  it('in a git workspace where it is committed, names git as the way back, and the log says force cannot put it back', async () => {
    const h = await openSnapshotHarness({ files: { 'settings.env': before }, git: true });
    harnesses.push(h);
    await runNode(h, 'edit', ['settings.env'], { 'settings.env': after });

    const outcome = await revertRun(h.store.db, h.runId, h.workspace, { log: h.log });
    expect(outcome.conflicted).toEqual([{ path: 'settings.env', nodeId: 'edit', reason: expect.stringContaining('held a secret'), remedy: 'git' }]);
    const [finished] = await readEvents(h.store.db, h.runId, { types: ['revert/finished'] });
    expect(finished?.payload).toMatchObject({ conflicts: ['settings.env'], unrestorable: ['settings.env'] });

    // Committed as it is now: git has nothing else to put back.
    h.git('commit', '-qam', 'prod');
    expect((await revertRun(h.store.db, h.runId, h.workspace, { log: h.log, dryRun: true })).conflicted[0]?.remedy).toBe('none');
  });

  it('is left as it is when a node is restored for a retry or a resume, and named as not restored', async () => {
    const h = await harness({ 'settings.env': before });
    await h.startNode('edit');
    const boundary = await h.snapshots.beginNode('edit', ['settings.env']);
    await h.toolWrite(h.snapshots.writeScopeFor('edit', ['settings.env']), 'settings.env', after);

    expect(await h.snapshots.restoreNodeFiles('edit', boundary)).toEqual({ restored: [], unrestorable: ['settings.env'] });
    expect(h.read('settings.env')).toBe(after);
  });
});
