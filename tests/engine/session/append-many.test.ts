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

    it("stores through a caller's statement that takes only some rows: those are the log's appends, heard by its listeners; an invalid draft is refused before anything is sent", async () => {
      const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      const heard: string[] = [];
      log.onAppend((events) => heard.push(...events.map((event) => `${event.seq} ${event.nodeId}`)));
      const { seq: last } = await log.append({ type: 'node/started', nodeId: 'first', payload: { attempt: 1 } });
      const drafts: EventDraft[] = ['a', 'b', 'c'].map((nodeId) => ({ type: 'node/started', nodeId, payload: { attempt: 1 } }));

      // The caller's statement stores rows a and c only, at the next two seqs.
      const stored = await log.appendThrough(drafts, async (rows) => {
        const taken = [2, 0].map((index, at) => ({ index, seq: last + 1 + at, payload: rows[index]!.payload }));
        const { parsedPayload: _parsed, ...first } = rows[2]!;
        const { parsedPayload: _parsedToo, ...second } = rows[0]!;
        await store.db.insertInto('events').values([{ ...first, seq: last + 1 }, { ...second, seq: last + 2 }]).execute();
        return taken;
      });
      let sent = false;
      const refused = log.appendThrough([{ type: 'node/started', nodeId: 'x', payload: { attempt: 0 } }], async () => {
        sent = true;
        return [];
      }).then(() => 'stored', (error: Error) => error.message);

      expect(stored.map((event) => `${event.seq - last} ${event.nodeId}`)).toEqual(['1 c', '2 a']);
      expect(heard.slice(-2)).toEqual([`${last + 1} c`, `${last + 2} a`]);
      expect((await readEvents(store.db, run.id, { fromSeq: last })).map((event) => event.nodeId)).toEqual(['first', 'c', 'a']);
      expect(await refused).toMatch(/invalid node\/started event/);
      expect(sent).toBe(false);
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

    it("stores the appends of many nodes made at once, each with its own effects; one whose effects refuse fails alone, its events not stored", async () => {
      const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      const effectsSaw: string[][] = [];
      const appends = Array.from({ length: 6 }, (_, index) =>
        log.appendMany([{ type: 'node/started', nodeId: `n${index}`, payload: { attempt: 1 } }], {
          effects: async (_transaction, events) => {
            effectsSaw.push(events.map((event) => event.nodeId!));
            if (index === 3) throw new Error('n3 refused by its effects');
          },
        }));

      const outcomes = await Promise.allSettled(appends);

      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect(String((outcomes[3] as PromiseRejectedResult).reason)).toContain('n3 refused by its effects');
      const stored = await readEvents(store.db, run.id, { types: ['node/started'] });
      expect(stored.map((event) => event.nodeId)).toEqual(['n0', 'n1', 'n2', 'n4', 'n5']);
      expect(stored.map((event) => event.seq)).toEqual([2, 3, 4, 5, 6]);
      // Every effect ran with its own append's events only.
      expect(effectsSaw.every((nodes) => nodes.length === 1)).toBe(true);
    });
  });
}
