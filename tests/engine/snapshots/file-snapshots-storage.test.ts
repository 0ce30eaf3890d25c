import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, FileSnapshots, createRun, diffRun, revertRun, type Store } from '../../../engine/index.js';
import { recoverStoppedScans } from '../../../engine/snapshots/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

/** Migration 0003 and the snapshot rows behave the same on every backend, NUL bytes and all. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`file snapshots storage: ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let workspace: string;
    beforeEach(async () => {
      ({ store, cleanup } = await backend.open());
      workspace = mkdtempSync(join(tmpdir(), 'dagent-workspace-'));
    });
    afterEach(async () => {
      await cleanup();
      rmSync(workspace, { recursive: true, force: true });
    });

    it('stores text and binary contents before and after, diffs and reverts them', async () => {
      const binary = Buffer.from([0x00, 0x61, 0x00, 0xff]);
      writeFileSync(join(workspace, 'a.txt'), 'héllo\n');
      writeFileSync(join(workspace, 'b.bin'), binary);
      const run = await createRun(store.db, { task: 't', workspace, mode: 'plan' });
      const snapshots = new FileSnapshots({ db: store.db, runId: run.id, workspace, git: false });
      const boundary = await snapshots.beginNode('edit', ['*']);
      writeFileSync(join(workspace, 'a.txt'), 'héllo wörld\n');
      writeFileSync(join(workspace, 'b.bin'), Buffer.from([0x00, 0x62]));
      expect(await snapshots.endNode('edit', ['*'], boundary)).toEqual({ filesChanged: ['a.txt', 'b.bin'], strayChanges: [] });

      const rows = await store.db.selectFrom('file_snapshots').select(['path', 'encoding', 'content_before', 'content_after']).orderBy('path').execute();
      expect(rows).toEqual([
        { path: 'a.txt', encoding: 'utf8', content_before: 'héllo\n', content_after: 'héllo wörld\n' },
        { path: 'b.bin', encoding: 'base64', content_before: 'AGEA/w==', content_after: 'AGI=' },
      ]);
      expect((await diffRun(store.db, run.id, workspace)).files.map((file) => file.content)).toEqual(['text', 'binary']);
      const outcome = await revertRun(store.db, run.id, workspace, { log: new EventLog(store.db, run.id) });
      expect(outcome.restored.map((file) => file.path)).toEqual(['a.txt', 'b.bin']);
      expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('héllo\n');
      expect(readFileSync(join(workspace, 'b.bin'))).toEqual(binary);
    });

    it('keeps a deferred scan (migration 0015) until a later process recovers what a killed command changed', async () => {
      writeFileSync(join(workspace, 'a.txt'), 'before\n');
      const run = await createRun(store.db, { task: 't', workspace, mode: 'react' });
      const snapshots = new FileSnapshots({ db: store.db, runId: run.id, workspace, git: false, deferScan: true });
      await snapshots.beginNode('react', ['**']);
      await snapshots.writeScopeFor('react', ['**']).beforeCommand?.();
      // A second attempt's scan takes the first one's place.
      await snapshots.beginNode('react', ['**']);
      await snapshots.writeScopeFor('react', ['**']).beforeCommand?.();
      writeFileSync(join(workspace, 'made.txt'), 'made\n');

      expect(await recoverStoppedScans(store.db, run.id, workspace)).toEqual([{ nodeId: 'react', filesChanged: ['made.txt'] }]);
      expect(await store.db.selectFrom('node_scans').selectAll().execute()).toEqual([]);
    });
  });
}
