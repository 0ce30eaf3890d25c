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
  });
}
