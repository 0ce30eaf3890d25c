import { afterEach, describe, expect, it } from 'vitest';
import { MAX_EAGER_SNAPSHOT_FILE_BYTES, recoverStoppedScans } from '../../../engine/snapshots/index.js';
import { openSnapshotHarness, snapshotRows, type SnapshotHarness } from './file-harness.js';

/**
 * A react run's one node writes anywhere (`**`) in a workspace without git: its snapshots read the
 * workspace only if something may change files behind its tools (a command, a hook, an MCP tool),
 * at the first such thing, and never when it ran none.
 */

const harnesses: SnapshotHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.cleanup();
});

const EVERYWHERE = ['**'];

async function reactHarness(): Promise<SnapshotHarness> {
  const opened = await openSnapshotHarness({ deferScan: true, files: { 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'docs/c.md': 'c\n' } });
  harnesses.push(opened);
  return opened;
}

describe('a node that scans at its first command (deferScan)', () => {
  it('begins without reading the workspace and, running no command, ends with what its tools wrote and nothing else', async () => {
    const h = await reactHarness();
    const boundary = await h.snapshots.beginNode('react', EVERYWHERE);
    expect(boundary).toMatchObject({ kind: 'scan', files: {}, deferred: true });
    expect(await snapshotRows(h.store, h.runId)).toEqual([]);

    const scope = h.snapshots.writeScopeFor('react', EVERYWHERE);
    await h.toolWrite(scope, 'src/a.ts', 'A\n');
    // Not the node's doing (it ran no command): its end does not look for it.
    h.put('docs/c.md', 'edited by hand\n');
    const end = await h.snapshots.endNode('react', EVERYWHERE, JSON.parse(JSON.stringify(boundary)), { firstAttempt: true });

    expect(end.filesChanged).toEqual(['src/a.ts']);
    expect((await snapshotRows(h.store, h.runId)).map((row) => row.path)).toEqual(['src/a.ts']);
  });

  it('scans before its first command and finds what its commands changed, beside its tools\' writes; revert puts every file back', async () => {
    const h = await reactHarness();
    const boundary = await h.snapshots.beginNode('react', EVERYWHERE);
    const scope = h.snapshots.writeScopeFor('react', EVERYWHERE);
    await h.toolWrite(scope, 'src/a.ts', 'A\n');

    await scope.beforeCommand?.();
    h.put('src/b.ts', 'B by a command\n');
    h.put('made.txt', 'made\n');
    await scope.beforeCommand?.();
    h.put('src/a.ts', 'A again, by a command\n');
    const end = await h.snapshots.endNode('react', EVERYWHERE, JSON.parse(JSON.stringify(boundary)), { firstAttempt: true });

    expect(end.filesChanged).toEqual(['made.txt', 'src/a.ts', 'src/b.ts']);
    await h.snapshots.revertNode('react');
    expect([h.read('src/a.ts'), h.read('src/b.ts'), h.read('made.txt'), h.read('docs/c.md')]).toEqual(['a\n', 'b\n', undefined, 'c\n']);
  });

  it('stores its scan before the command runs, so a process killed mid-command leaves what recovers the command\'s change', async () => {
    const big = Buffer.alloc(MAX_EAGER_SNAPSHOT_FILE_BYTES + 1, 'x');
    const h = await reactHarness();
    h.put('big.log', big);
    await h.snapshots.beginNode('react', EVERYWHERE);
    const scope = h.snapshots.writeScopeFor('react', EVERYWHERE);
    await scope.beforeCommand?.();
    // The command runs, then its process is killed: no endNode.
    h.put('src/b.ts', 'B by a command\n');
    h.put('made.txt', 'made\n');
    h.put('big.log', Buffer.concat([big, Buffer.from('more\n')]));

    const recovered = await recoverStoppedScans(h.store.db, h.runId, h.workspace);

    expect(recovered).toEqual([{ nodeId: 'react', filesChanged: ['big.log', 'made.txt', 'src/b.ts'] }]);
    const rows = await snapshotRows(h.store, h.runId);
    expect(rows.map((row) => [row.path, row.content_before === null, row.hash_after === null])).toEqual([
      ['big.log', true, false],
      ['made.txt', true, false],
      ['src/b.ts', false, false],
    ]);
    // Recovered once: a second look finds no scan left, and reads nothing.
    expect(await recoverStoppedScans(h.store.db, h.runId, h.workspace)).toEqual([]);
  });

  it('forgets its stored scan once its end is recorded', async () => {
    const h = await reactHarness();
    const boundary = await h.snapshots.beginNode('react', EVERYWHERE);
    const scope = h.snapshots.writeScopeFor('react', EVERYWHERE);
    await scope.beforeCommand?.();
    h.put('made.txt', 'made\n');
    await h.snapshots.endNode('react', EVERYWHERE, boundary, { firstAttempt: true });

    expect(await recoverStoppedScans(h.store.db, h.runId, h.workspace)).toEqual([]);
  });
});
