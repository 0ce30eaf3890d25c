import { hostname } from 'node:os';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { EVENT_VERSIONS, EventLog, StoredEventError, createRun, processStartTime, readEvents } from '../../../engine/index.js';
import { defineEvent, readStoredPayload, type EventDefinition } from '../../../engine/session/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

describe.each(contractStores())('events read back against the version they were written with ($name)', (factory) => {
  it.skipIf(!factory.available)('records the version of its type with every appended row', async () => {
    const { store, cleanup } = await factory.open();
    try {
      const run = await createRun(store.db, { task: 'versions', workspace: '/w', mode: 'plan' });
      await new EventLog(store.db, run.id).append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });

      const rows = await store.db.selectFrom('events').select(['type', 'version']).where('run_id', '=', run.id).orderBy('seq').execute();

      expect(rows).toEqual([
        { type: 'run/created', version: EVENT_VERSIONS['run/created'] },
        { type: 'node/started', version: EVENT_VERSIONS['node/started'] },
      ]);
    } finally {
      await cleanup();
    }
  });

  it.skipIf(!factory.available)('reads a run written before events had versions (rows without one are version 1)', async () => {
    const { store, cleanup } = await factory.open();
    try {
      const run = await createRun(store.db, { task: 'an old run', workspace: '/w', mode: 'plan' });
      await store.db
        .insertInto('events')
        .values({ run_id: run.id, seq: 2, node_id: 'a', turn: 0, step: 0, type: 'node/succeeded', payload: '{"result":"done"}', surface_op: null, source_event_seqs: null, created_at: '2026-01-01T00:00:00.000Z' })
        .execute();

      const events = await readEvents(store.db, run.id);

      expect(events.map((event) => [event.seq, event.type, event.payload])).toEqual([
        [1, 'run/created', { task: 'an old run', workspace: '/w', mode: 'plan', pid: process.pid, host: hostname(), startTime: processStartTime(process.pid) }],
        [2, 'node/succeeded', { result: 'done' }],
      ]);
    } finally {
      await cleanup();
    }
  });

  it.skipIf(!factory.available)('reads a node/failed row of version 1 (before waitsFor) and refuses a waitsFor that version 1 never wrote', async () => {
    const { store, cleanup } = await factory.open();
    try {
      const run = await createRun(store.db, { task: 'a run from before waitsFor', workspace: '/w', mode: 'plan' });
      const row = { run_id: run.id, node_id: 'a', turn: 0, step: 0, type: 'node/failed', surface_op: null, source_event_seqs: null, created_at: '2026-01-01T00:00:00.000Z', version: 1 };
      await store.db.insertInto('events').values({ ...row, seq: 2, payload: '{"error":"a write was denied","attempt":1}' }).execute();

      const events = await readEvents(store.db, run.id);

      expect(EVENT_VERSIONS['node/failed']).toBe(2);
      expect(events.at(-1)).toMatchObject({ type: 'node/failed', payload: { error: 'a write was denied', attempt: 1 } });
      await store.db.insertInto('events').values({ ...row, seq: 3, payload: '{"error":"x","waitsFor":"human-approval"}' }).execute();
      await expect(readEvents(store.db, run.id)).rejects.toBeInstanceOf(StoredEventError);
    } finally {
      await cleanup();
    }
  });

  it.skipIf(!factory.available)('reads a tool result of version 1 with the uniform meta fields of today', async () => {
    const { store, cleanup } = await factory.open();
    try {
      const run = await createRun(store.db, { task: 'an older run', workspace: '/w', mode: 'plan' });
      const payload = { toolCallId: 'c', name: 'read_file', content: 'abc', isError: false, meta: { outcome: 'ok', truncated: true, originalLength: 900, path: 'src/a.ts' } };
      await store.db
        .insertInto('events')
        .values({ run_id: run.id, seq: 2, node_id: 'a', turn: 0, step: 0, type: 'tool/result', payload: JSON.stringify(payload), surface_op: null, source_event_seqs: null, created_at: '2026-01-01T00:00:00.000Z', version: 1 })
        .execute();

      const [result] = await readEvents(store.db, run.id, { types: ['tool/result'] });

      expect(result?.payload).toEqual({ ...payload, meta: { ...payload.meta, source: 'src/a.ts', contentType: 'text/plain', provider: 'dagent' } });
    } finally {
      await cleanup();
    }
  });

  it.skipIf(!factory.available)('refuses a row from before versions that does not match its schema, naming the run, the seq and the type', async () => {
    const { store, cleanup } = await factory.open();
    try {
      const run = await createRun(store.db, { task: 'a damaged run', workspace: '/w', mode: 'plan' });
      // A row without a version (read as version 1, checked against it), which the log would never write.
      // Rows of today's version are not checked again: the append checked them (see event-schema-pins.test.ts).
      await store.db
        .insertInto('events')
        .values({ run_id: run.id, seq: 2, node_id: 'a', turn: 0, step: 0, type: 'node/started', payload: '{"attempt":"first"}', surface_op: null, source_event_seqs: null, created_at: '2026-01-01T00:00:00.000Z', version: null })
        .execute();

      const error = await readEvents(store.db, run.id).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(StoredEventError);
      expect(error).toMatchObject({ runId: run.id, seq: 2, eventType: 'node/started', version: 1 });
      expect(String(error)).toContain(`run ${run.id}, event 2 (node/started, version 1) cannot be read: attempt:`);
    } finally {
      await cleanup();
    }
  });
});

describe('reading a payload of an earlier version', () => {
  // `note/added` went from { text } (version 1) to { lines } (version 2).
  const noteAdded: EventDefinition = defineEvent(2, () => z.strictObject({ lines: z.array(z.string()) }), {
    1: { payload: () => z.strictObject({ text: z.string() }), upgrade: (payload) => ({ lines: (payload as { text: string }).text.split('\n') }) },
  });
  const lookup = (type: string): EventDefinition | undefined => (type === 'note/added' ? noteAdded : undefined);
  const row = (version: number | null, payload: unknown) => ({ run_id: 'r1', seq: 7, type: 'note/added', payload: JSON.stringify(payload), version });

  it.each<[string, number | null, unknown, unknown]>([
    ['today’s version as written', 2, { lines: ['a'] }, { lines: ['a'] }],
    ['today’s version as written, not checked again (its append checked it)', 2, { lines: 'not checked' }, { lines: 'not checked' }],
    ['version 1, upgraded', 1, { text: 'a\nb' }, { lines: ['a', 'b'] }],
    ['no version (version 1), upgraded', null, { text: 'c' }, { lines: ['c'] }],
  ])('reads %s', (_case, version, payload, expected) => {
    expect(readStoredPayload('r1', row(version, payload), lookup)).toEqual(expected);
  });

  it.each<[string, ReturnType<typeof row>, RegExp]>([
    ['a version-1 row in the shape of version 2', row(1, { lines: ['a'] }), /event 7 \(note\/added, version 1\) cannot be read: text:/],
    ['a version it does not know', row(3, { lines: [] }), /version 3\) cannot be read: this dagent reads versions 1, 2 of it/],
    ['a type it does not know', { ...row(1, {}), type: 'note/removed' }, /note\/removed, version 1\) cannot be read: unknown event type/],
    ['a payload that is not JSON', { ...row(2, {}), payload: '{"lines":' }, /the payload is not JSON/],
  ])('refuses %s with a StoredEventError', (_case, stored, message) => {
    expect(() => readStoredPayload('r1', stored, lookup)).toThrow(StoredEventError);
    expect(() => readStoredPayload('r1', stored, lookup)).toThrow(message);
  });
});
