import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { createRun, followRun, openDatabase, runLog, type SessionEvent, type Store } from '../../../engine/index.js';
import { holdListening } from '../../../engine/session/postgres-notifications.js';
import { contractStores } from '../../helpers/contract-stores.js';

/**
 * A process hears a PostgreSQL store on one listening connection, whoever follows what: a run's
 * followers, the dashboard's, a worker's watch of each run. Opening one costs a server process and
 * tens of milliseconds, which a run's first node used to wait for.
 */

const postgres = contractStores().find((factory) => factory.name === 'postgres')!;

/** The server's connections to the store's database that listen (their last statement was the LISTEN). */
async function listeningConnections(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN dagent_events%' AND pid <> pg_backend_pid()");
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

async function follow(store: Store, runId: string, seen: SessionEvent[]): Promise<{ stop: () => Promise<void> }> {
  // A safety poll of ten minutes: only a notification can deliver in time.
  return followRun(store, runId, { afterSeq: 1, signal: new AbortController().signal, pollMs: 60_000, onEvents: (events) => seen.push(...events) });
}

describe('one listening connection per process (PostgreSQL)', () => {
  it.skipIf(!postgres.available)('serves the followers of two runs, each hearing only its own run, and closes with the last of them', async () => {
    const { store, cleanup } = await postgres.open();
    const writer = await openDatabase(store.url);
    try {
      const first = await createRun(store.db, { task: 'first', workspace: '/w', mode: 'plan' });
      const second = await createRun(store.db, { task: 'second', workspace: '/w', mode: 'plan' });
      const seenFirst: SessionEvent[] = [];
      const seenSecond: SessionEvent[] = [];
      const followers = [await follow(store, first.id, seenFirst), await follow(store, second.id, seenSecond)];

      expect(await listeningConnections(store.url)).toHaveLength(1);
      await runLog(writer.db, first.id).append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
      await runLog(writer.db, second.id).append({ type: 'node/started', nodeId: 'b', payload: { attempt: 1 } });
      await vi.waitFor(() => expect([seenFirst.map((event) => event.nodeId), seenSecond.map((event) => event.nodeId)]).toEqual([['a'], ['b']]), { timeout: 5_000, interval: 20 });

      await followers[0]!.stop();
      expect(await listeningConnections(store.url)).toHaveLength(1);
      await followers[1]!.stop();
      await vi.waitFor(async () => expect(await listeningConnections(store.url)).toHaveLength(0), { timeout: 5_000, interval: 50 });
    } finally {
      await writer.close();
      await cleanup();
    }
  });

  it.skipIf(!postgres.available)('is kept open by a hold (a worker between runs), and a follower that starts then uses it', async () => {
    const { store, cleanup } = await postgres.open();
    const writer = await openDatabase(store.url);
    try {
      const release = await holdListening(store.url);
      const [held] = await listeningConnections(store.url);
      expect(held).toBeDefined();

      const run = await createRun(store.db, { task: 'taken by a worker', workspace: '/w', mode: 'plan' });
      const seen: SessionEvent[] = [];
      const follower = await follow(store, run.id, seen);
      expect(await listeningConnections(store.url)).toEqual([held]);
      await runLog(writer.db, run.id).append({ type: 'run/cancel-requested', payload: { by: 'another host' } });
      await vi.waitFor(() => expect(seen.map((event) => event.type)).toEqual(['run/cancel-requested']), { timeout: 5_000, interval: 20 });
      await follower.stop();

      expect(await listeningConnections(store.url)).toEqual([held]);
      await release();
      await vi.waitFor(async () => expect(await listeningConnections(store.url)).toHaveLength(0), { timeout: 5_000, interval: 50 });
    } finally {
      await writer.close();
      await cleanup();
    }
  });

  it.skipIf(!postgres.available)('once dropped by the server, is opened afresh for the next follower, which hears again', async () => {
    const { store, cleanup } = await postgres.open();
    const writer = await openDatabase(store.url);
    try {
      const run = await createRun(store.db, { task: 'a server restart', workspace: '/w', mode: 'plan' });
      const before: SessionEvent[] = [];
      const earlier = await follow(store, run.id, before);
      const [dropped] = await listeningConnections(store.url);
      const admin = new pg.Client({ connectionString: store.url });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [dropped]);
      await admin.end();
      await vi.waitFor(async () => expect(await listeningConnections(store.url)).toHaveLength(0), { timeout: 5_000, interval: 50 });

      const after: SessionEvent[] = [];
      const later = await follow(store, run.id, after);
      const [reopened] = await listeningConnections(store.url);
      expect(reopened).toBeDefined();
      expect(reopened).not.toBe(dropped);
      await runLog(writer.db, run.id).append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
      await vi.waitFor(() => expect(after.map((event) => event.nodeId)).toEqual(['a']), { timeout: 5_000, interval: 20 });

      await earlier.stop();
      await later.stop();
    } finally {
      await writer.close();
      await cleanup();
    }
  });

  it.skipIf(!postgres.available)('names the types another process inserted: a follower of some types reads only for those, and marks of other types stay put', async () => {
    const { store, cleanup } = await postgres.open();
    const writer = await openDatabase(store.url);
    try {
      const run = await createRun(store.db, { task: 'a worker watching its run', workspace: '/w', mode: 'plan' });
      let reads = 0;
      // Every statement the follower's store runs comes back through here (its reads are prepared, not built).
      const counting: KyselyPlugin = {
        transformQuery: ({ node }) => node,
        transformResult: async ({ result }) => {
          reads += 1;
          return result;
        },
      };
      const watched = { db: store.db.withPlugin(counting), dialect: 'postgres' as const, url: store.url };
      const seen: SessionEvent[] = [];
      const follower = await followRun(watched, run.id, { afterSeq: 0, types: ['run/cancel-requested'], signal: new AbortController().signal, pollMs: 60_000, onEvents: (events) => seen.push(...events) });
      const { writes } = runLog(watched.db, run.id);
      const toldMark = writes.markOfTypes(['node/told']);
      const startedMark = writes.markOfTypes(['node/started']);
      reads = 0;

      // Another process's work on the run (the scheduler's starts, another worker's steps): nothing this follower wants.
      for (const nodeId of ['a', 'b', 'c']) await runLog(writer.db, run.id).append({ type: 'node/started', nodeId, payload: { attempt: 1 } });
      await vi.waitFor(() => expect(writes.markOfTypes(['node/started'])).toBe(startedMark! + 3), { timeout: 5_000, interval: 20 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reads).toBe(0);
      expect(writes.markOfTypes(['node/told'])).toBe(toldMark);

      await runLog(writer.db, run.id).append({ type: 'run/cancel-requested', payload: { by: 'another host' } });
      await vi.waitFor(() => expect(seen.map((event) => event.type)).toEqual(['run/cancel-requested']), { timeout: 5_000, interval: 20 });
      expect(reads).toBeGreaterThan(0);
      await follower.stop();
    } finally {
      await writer.close();
      await cleanup();
    }
  });
});
