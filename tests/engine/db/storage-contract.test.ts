import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, createRun, getRun, readEvents, type Store } from '../../../engine/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

/** One suite, every backend: what the engine relies on must hold in SQLite and PostgreSQL alike. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`storage contract: ${backend.name}`, () => {
    let store: Store;
    let reopen: () => Promise<Store>;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, reopen, cleanup } = await backend.open());
    });
    afterEach(async () => cleanup());

    it('creates a run with its run/created event', async () => {
      const run = await createRun(store.db, { task: 'rename area()', workspace: '/repo', mode: 'plan' });
      expect(run).toMatchObject({ task: 'rename area()', status: 'planning', planVersion: null });
      expect((await getRun(store.db, run.id)).id).toBe(run.id);
      const events = await readEvents(store.db, run.id);
      expect(events.map((event) => [event.seq, event.type])).toEqual([[1, 'run/created']]);
    });

    it('assigns gap-free seqs per run, also to concurrent appends', async () => {
      const first = await createRun(store.db, { task: 'a', workspace: '/repo', mode: 'plan' });
      const second = await createRun(store.db, { task: 'b', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, first.id);
      await Promise.all(
        Array.from({ length: 40 }, (_, index) => log.append({ type: 'user/message', nodeId: `n${index % 4}`, payload: { content: `m${index}`, source: 'user' } })),
      );
      await new EventLog(store.db, second.id).append({ type: 'run/started', payload: {} });
      const seqs = (await readEvents(store.db, first.id)).map((event) => event.seq);
      expect(seqs).toEqual(Array.from({ length: 41 }, (_, index) => index + 1));
      expect((await readEvents(store.db, second.id)).map((event) => event.seq)).toEqual([1, 2]);
    });

    it('refuses to update or delete events', async () => {
      const run = await createRun(store.db, { task: 'a', workspace: '/repo', mode: 'plan' });
      await expect(store.db.updateTable('events').set({ type: 'run/failed' }).where('run_id', '=', run.id).execute()).rejects.toThrow(/append-only/);
      await expect(store.db.deleteFrom('events').where('run_id', '=', run.id).execute()).rejects.toThrow(/append-only/);
      expect((await readEvents(store.db, run.id)).map((event) => event.type)).toEqual(['run/created']);
    });

    it('writes effects in the same transaction as the events, or neither', async () => {
      const run = await createRun(store.db, { task: 'a', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      await expect(
        log.append(
          { type: 'run/started', payload: {} },
          {
            effects: async (transaction) => {
              await transaction.updateTable('runs').set({ status: 'running' }).where('id', '=', run.id).execute();
              throw new Error('disk full');
            },
          },
        ),
      ).rejects.toThrow('disk full');
      expect((await getRun(store.db, run.id)).status).toBe('planning');
      expect((await readEvents(store.db, run.id)).map((event) => event.type)).toEqual(['run/created']);

      await log.append({ type: 'run/started', payload: {} }, { effects: async (transaction) => void (await transaction.updateTable('runs').set({ status: 'running' }).where('id', '=', run.id).execute()) });
      expect((await getRun(store.db, run.id)).status).toBe('running');
    });

    it('restores a node surface with its surface ops after reopening', async () => {
      const run = await createRun(store.db, { task: 'a', workspace: '/repo', mode: 'plan' });
      const session = await Session.open(new EventLog(store.db, run.id), 'n');
      await session.append({ type: 'user/message', payload: { content: 'go', source: 'instruction' } });
      await session.append({ type: 'assistant/message', payload: { content: 'thinking', toolCalls: [], finishReason: 'stop', provider: 'p', model: 'm' } });
      await session.append({ type: 'user/message', payload: { content: 'summary', source: 'compaction-summary' }, surfaceOp: { op: 'replace', start: 3, end: 3 }, sourceEventSeqs: [3] });
      const expected = session.deriveMessages().map((message) => message.seq);
      session.close();

      store = await reopen();
      const reopened = await Session.open(new EventLog(store.db, run.id), 'n');
      expect(reopened.deriveMessages().map((message) => message.seq)).toEqual(expected);
      expect(expected).toEqual([2, 4]);
    });
  });
}
