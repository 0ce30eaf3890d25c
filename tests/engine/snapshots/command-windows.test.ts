import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileSnapshots } from '../../../engine/index.js';
import type * as FileScan from '../../../engine/snapshots/file-scan.js';
import { openSnapshotHarness, snapshotRows, type SnapshotHarness } from './file-harness.js';

/**
 * Plan nodes in a workspace without git: a node that runs a command, hook or MCP tool has a
 * command window (the whole workspace scanned before the first of them and at the node's end), so
 * what its commands change outside its writes is its change; a node that runs none reads only its
 * write set. Nodes that run at the same time share the workspace: a change another node's tools
 * wrote is that node's, any other is recorded, and names the nodes whose commands overlapped.
 */

const scans = vi.hoisted(() => ({ patterns: [] as (readonly string[])[] }));
vi.mock('../../../engine/snapshots/file-scan.js', async (original) => {
  const real = await original<typeof FileScan>();
  return {
    ...real,
    scanWriteSet: (root: string, writeSet: { readonly patterns: readonly string[] }) => {
      scans.patterns.push(writeSet.patterns);
      return real.scanWriteSet(root, writeSet as Parameters<typeof real.scanWriteSet>[1]);
    },
  };
});

const harnesses: SnapshotHarness[] = [];
afterEach(async () => {
  scans.patterns.length = 0;
  for (const harness of harnesses.splice(0)) await harness.cleanup();
});

async function planHarness(): Promise<SnapshotHarness> {
  const opened = await openSnapshotHarness({ files: { 'src/a.ts': 'a\n', 'big.txt': 'line one\n', 'notes/readme.md': 'read me\n' } });
  harnesses.push(opened);
  return opened;
}

const fromLog = (boundary: unknown): unknown => JSON.parse(JSON.stringify(boundary));

describe('a plan node without git', () => {
  it('that runs no command scans only its write set, and reads no other file', async () => {
    const h = await planHarness();
    const boundary = await h.snapshots.beginNode('edit', ['src/a.ts']);
    const scope = h.snapshots.writeScopeFor('edit', ['src/a.ts']);
    await h.toolWrite(scope, 'src/a.ts', 'A\n');
    h.put('big.txt', 'edited by hand\n');
    const end = await h.snapshots.endNode('edit', ['src/a.ts'], fromLog(boundary), { firstAttempt: true });

    expect(end).toEqual({ filesChanged: ['src/a.ts'], strayChanges: [] });
    expect(scans.patterns).toEqual([['src/a.ts'], ['src/a.ts']]);
    expect((await snapshotRows(h.store, h.runId)).map((row) => row.path)).toEqual(['src/a.ts']);
  });

  it('that runs a command records what the command changed outside its writes, even where a later node declares writes', async () => {
    const h = await planHarness();
    const boundary = await h.snapshots.beginNode('grow', []);
    const scope = h.snapshots.writeScopeFor('grow', []);
    await scope.beforeCommand?.();
    // The files outside its writes are held for the window, not stored: only what changes is.
    expect(await snapshotRows(h.store, h.runId)).toEqual([]);
    h.put('big.txt', 'line one\ntail\n');
    h.put('made.txt', 'made\n');
    const end = await h.snapshots.endNode('grow', [], fromLog(boundary), { firstAttempt: true, otherWrites: ['big.txt'] });

    expect(end).toEqual({ filesChanged: ['big.txt', 'made.txt'], strayChanges: ['big.txt', 'made.txt'] });
    expect(scans.patterns).toContainEqual(['**']);
    expect((await snapshotRows(h.store, h.runId)).map((row) => row.path)).toEqual(['big.txt', 'made.txt']);
    await h.snapshots.revertNode('grow');
    expect([h.read('big.txt'), h.read('made.txt'), h.read('src/a.ts')]).toEqual(['line one\n', undefined, 'a\n']);
  });

  it('leaves to a running sibling what its tools wrote, and names the siblings whose commands ran at the same time', async () => {
    const h = await planHarness();
    const grow = await h.snapshots.beginNode('grow', []);
    const edit = await h.snapshots.beginNode('edit', ['src/**']);
    const growScope = h.snapshots.writeScopeFor('grow', []);
    const editScope = h.snapshots.writeScopeFor('edit', ['src/**']);
    await growScope.beforeCommand?.();
    await editScope.beforeCommand?.();
    await h.toolWrite(editScope, 'src/a.ts', 'A by edit\n');
    // Either node's command could have made this change.
    h.put('big.txt', 'line one\ntail\n');

    const grown = await h.snapshots.endNode('grow', [], fromLog(grow), { firstAttempt: true });
    const edited = await h.snapshots.endNode('edit', ['src/**'], fromLog(edit), { firstAttempt: true });

    expect(grown).toEqual({ filesChanged: ['big.txt'], strayChanges: ['big.txt'], overlapped: ['edit'] });
    expect(edited).toEqual({ filesChanged: ['big.txt', 'src/a.ts'], strayChanges: ['big.txt'], overlapped: ['grow'] });
  });

  it('records for itself a change to a file a sibling wrote and then left, when it changed after', async () => {
    const h = await planHarness();
    const grow = await h.snapshots.beginNode('grow', []);
    const edit = await h.snapshots.beginNode('edit', ['src/**']);
    const growScope = h.snapshots.writeScopeFor('grow', []);
    await growScope.beforeCommand?.();
    await h.toolWrite(h.snapshots.writeScopeFor('edit', ['src/**']), 'src/a.ts', 'A by edit\n');
    await h.snapshots.endNode('edit', ['src/**'], fromLog(edit), { firstAttempt: true });
    h.put('src/a.ts', 'A by grow\n');

    const grown = await h.snapshots.endNode('grow', [], fromLog(grow), { firstAttempt: true });

    expect(grown).toEqual({ filesChanged: ['src/a.ts'], strayChanges: ['src/a.ts'] });
  });

  it('resumed in a new process, sees what its commands change from there on', async () => {
    const h = await planHarness();
    const boundary = fromLog(await h.snapshots.beginNode('grow', []));
    // The process that began the node is gone; another goes on with the attempt, its files as left.
    const next = new FileSnapshots({ db: h.store.db, runId: h.runId, workspace: h.workspace, git: false });
    await next.resumeNode('grow', [], boundary, { kind: 'as-left' });
    await next.writeScopeFor('grow', []).beforeCommand?.();
    h.put('big.txt', 'line one\ntail\n');

    expect(await next.endNode('grow', [], boundary)).toEqual({ filesChanged: ['big.txt'], strayChanges: ['big.txt'] });
  });
});
