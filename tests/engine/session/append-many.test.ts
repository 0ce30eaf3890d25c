import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, createRun, readEvents, type EventDraft, type Store } from '../../../engine/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`appendMany on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await backend.open()));
    afterEach(async () => cleanup());

    it('stores a large group in order with consecutive seqs, whatever its size', async () => {
      const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      for (const size of [1, 2, 5, 17, 64, 150]) {
        const drafts: EventDraft[] = Array.from({ length: size }, (_, index) => ({ type: 'node/started', nodeId: `n${size}-${index}`, payload: { attempt: 1 } }));
        const stored = await log.appendMany(drafts);
        expect(stored.map((event) => event.nodeId)).toEqual(drafts.map((draft) => draft.nodeId));
      }
      const seqs = (await readEvents(store.db, run.id)).map((event) => event.seq);
      expect(seqs).toEqual(Array.from({ length: 1 + 1 + 2 + 5 + 17 + 64 + 150 }, (_, index) => index + 1));
      const last = (await readEvents(store.db, run.id, { fromSeq: seqs.length })).at(0);
      expect(last).toMatchObject({ type: 'node/started', nodeId: 'n150-149', payload: { attempt: 1 } });
    });

    it('takes many writers of one run at once: every group is stored whole, the seqs gap-free', async () => {
      const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
      const writers = Array.from({ length: 8 }, () => new EventLog(store.db, run.id));
      const groups = Array.from({ length: 64 }, (_, group) =>
        Array.from({ length: 3 }, (_, index): EventDraft => ({ type: 'node/started', nodeId: `g${group}-${index}`, payload: { attempt: 1 } })));

      await Promise.all(groups.map((drafts, group) => writers[group % writers.length]!.appendMany(drafts)));

      const events = await readEvents(store.db, run.id);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 1 + 64 * 3 }, (_, index) => index + 1));
      for (const [group] of groups.entries()) {
        const seqs = events.filter((event) => event.nodeId?.startsWith(`g${group}-`)).map((event) => event.seq);
        expect(seqs).toEqual([seqs[0], seqs[0]! + 1, seqs[0]! + 2]);
      }
    });
  });
}
