import { afterEach, describe, expect, it } from 'vitest';
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
});
