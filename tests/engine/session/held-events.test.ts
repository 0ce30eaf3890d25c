import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, createRun, readEvents, type SessionEvent, type Store } from '../../../engine/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

const marker = (nodeId: string) => ({ type: 'node/snapshotted' as const, nodeId, turn: 1, payload: { attempt: 1, boundary: { files: [] } } });
const instruction = (nodeId: string, content = 'Rename area() to getArea().') => ({ type: 'user/message' as const, nodeId, turn: 1, step: 0, payload: { content, source: 'instruction' as const } });

for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`events held for a node's next append, on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let log: EventLog;
    let writes: string[][];
    beforeEach(async () => {
      ({ store, cleanup } = await backend.open());
      log = new EventLog(store.db, (await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' })).id);
      writes = [];
      log.onAppend((events) => writes.push(events.map((event) => `${event.nodeId}:${event.type}`)));
    });
    afterEach(async () => cleanup());

    it("stores a node's held marker in the same write as its next append, first, and gives the caller only its own events", async () => {
      log.hold(marker('edit-a'));
      expect(await readEvents(store.db, log.runId, { nodeId: 'edit-a' })).toEqual([]);

      await log.append({ type: 'node/started', nodeId: 'edit-b', payload: { attempt: 1 } });
      const stored = await log.appendMany([instruction('edit-a')]);

      expect(stored.map((event) => event.type)).toEqual(['user/message']);
      expect(writes).toEqual([['edit-b:node/started'], ['edit-a:node/snapshotted', 'edit-a:user/message']]);
      const events = await readEvents(store.db, log.runId, { nodeId: 'edit-a' });
      expect(events.map((event) => event.type)).toEqual(['node/snapshotted', 'user/message']);
      expect(events[1]!.seq).toBe(events[0]!.seq + 1);
    });

    it('refuses an invalid event when it is held, not later with an innocent append', async () => {
      expect(() => log.hold({ type: 'node/snapshotted', nodeId: 'edit-a', payload: { attempt: 'one' } } as never)).toThrow(/node\/snapshotted/);
      await log.append(instruction('edit-a'));
      expect(writes).toEqual([['edit-a:user/message']]);
    });

    it('stores what is held on release, and nothing twice', async () => {
      log.hold(marker('edit-a'));
      await log.release('edit-a');
      await log.release('edit-a');
      await log.append(instruction('edit-a'));

      expect(writes).toEqual([['edit-a:node/snapshotted'], ['edit-a:user/message']]);
    });

    it('keeps the marker held when the append carrying it fails, so a later append stores it first', async () => {
      const guard = backend.name === 'sqlite'
        ? sql`create trigger refuse_odd before insert on events when new.payload like '%refuse me%' begin select raise(abort, 'refused'); end`
        : sql`create function refuse_odd() returns trigger language plpgsql as $$ begin if new.payload::text like '%refuse me%' then raise exception 'refused'; end if; return new; end $$`;
      await guard.execute(store.db);
      if (backend.name !== 'sqlite') await sql`create trigger refuse_odd before insert on events for each row execute function refuse_odd()`.execute(store.db);
      log.hold(marker('edit-a'));

      await expect(log.append(instruction('edit-a', 'refuse me'))).rejects.toThrow(/refused/);
      await log.append(instruction('edit-a'));

      const events = await readEvents(store.db, log.runId, { nodeId: 'edit-a' });
      expect(events.map((event) => event.type)).toEqual(['node/snapshotted', 'user/message']);
      expect((events[1] as SessionEvent<'user/message'>).payload.content).toBe('Rename area() to getArea().');
    });

    it('stores the marker before an append that has effects of its own, in a write of its own', async () => {
      log.hold(marker('edit-a'));
      const effectsSaw: string[] = [];

      await log.append({ type: 'node/failed', nodeId: 'edit-a', payload: { attempt: 1, error: 'stopped' } }, { effects: async (_transaction, events) => void effectsSaw.push(...events.map((event) => event.type)) });

      expect(effectsSaw).toEqual(['node/failed']);
      expect(writes).toEqual([['edit-a:node/snapshotted'], ['edit-a:node/failed']]);
    });

    it('opens a surface that begins at its held marker once stored, whatever came before it', async () => {
      await log.append(instruction('edit-a', 'an earlier attempt'));
      const session = Session.opening(log, marker('edit-a'));
      expect(session.begun).toBe(false);
      expect(() => session.fromSeq).toThrow(/not stored yet/);

      await log.append(instruction('edit-a'));

      const [stored] = await readEvents(store.db, log.runId, { nodeId: 'edit-a', types: ['node/snapshotted'] });
      expect(session.begun).toBe(true);
      expect(session.fromSeq).toBe(stored!.seq);
      expect(session.deriveMessages().map((message) => message.role === 'user' && message.content)).toEqual(['Rename area() to getArea().']);
      session.close();
    });
  });
}
