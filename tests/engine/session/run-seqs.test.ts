import type { KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { EventLog, createRun, openDatabase, readEvents, runLog } from '../../../engine/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

/**
 * Two processes append to one run at once (a worker's node and the scheduler): on PostgreSQL each
 * statement takes its seqs from the run's row in `run_seqs`, so the later one waits for the
 * earlier and goes in after it, instead of taking the same seq, failing on it and being sent again.
 */

const postgres = contractStores().find((factory) => factory.name === 'postgres')!;

describe('seqs of a run appended to from two processes (PostgreSQL)', () => {
  it.skipIf(!postgres.available)('an append that meets another in flight waits for it and goes in after it, sent once', async () => {
    const { store, cleanup } = await postgres.open();
    let inserts = 0;
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (node.kind === 'RawNode' || node.kind === 'InsertQueryNode') inserts += 1;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const other = await openDatabase(store.url);
    try {
      const run = await createRun(store.db, { task: 'two writers', workspace: '/w', mode: 'plan' });
      const a = await new EventLog(store.db, run.id).append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
      // The scheduler's process: an append with effects, whose transaction stays open until let go.
      let letGo!: () => void;
      const held = new Promise<void>((resolve) => (letGo = resolve));
      let inside!: () => void;
      const appended = new Promise<void>((resolve) => (inside = resolve));
      const first = new EventLog(store.db, run.id).append(
        { type: 'node/started', nodeId: 'b', payload: { attempt: 1 } },
        {
          effects: async () => {
            inside();
            await held;
          },
        },
      );
      await appended;

      // A worker's process appends meanwhile: its statement waits for the first to commit.
      const second = runLog(other.db.withPlugin(counting), run.id).append({ type: 'node/started', nodeId: 'c', payload: { attempt: 1 } });
      await new Promise((resolve) => setTimeout(resolve, 150));
      letGo();
      const [b, c] = await Promise.all([first, second]);

      expect([b.seq, c.seq]).toEqual([a.seq + 1, a.seq + 2]);
      expect(inserts).toBe(1);
      expect((await readEvents(store.db, run.id, { fromSeq: a.seq })).map((event) => `${event.seq - a.seq} ${event.nodeId}`)).toEqual(['0 a', '1 b', '2 c']);
    } finally {
      await other.close();
      await cleanup();
    }
  });

  it.skipIf(!postgres.available)('a run whose events a process from before the row wrote past it goes on after them', async () => {
    const { store, cleanup } = await postgres.open();
    try {
      const run = await createRun(store.db, { task: 'an older writer', workspace: '/w', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      const a = await log.append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
      // Written as a process that takes `max(seq) + 1` writes, without moving the run's row.
      const created_at = new Date().toISOString();
      await store.db.insertInto('events').values({ run_id: run.id, seq: a.seq + 1, node_id: 'b', turn: 1, step: 0, type: 'node/started', payload: '{"attempt":1}', surface_op: null, source_event_seqs: null, created_at, version: 1 }).execute();

      const next = await log.append({ type: 'node/started', nodeId: 'c', payload: { attempt: 1 } });

      expect(next.seq).toBe(a.seq + 2);
      expect((await readEvents(store.db, run.id, { fromSeq: a.seq })).map((event) => event.nodeId)).toEqual(['a', 'b', 'c']);
    } finally {
      await cleanup();
    }
  });
});
