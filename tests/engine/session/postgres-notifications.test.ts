import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { createRun, followRun, openDatabase, runLog, type SessionEvent, type Store } from '../../../engine/index.js';
import { CONTROL_EVENT_TYPES, CONTROL_NOTIFY_CHANNEL, holdListening } from '../../../engine/session/postgres-notifications.js';
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
    const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND (query LIKE 'LISTEN dagent_%' OR query LIKE 'UNLISTEN dagent_%') AND pid <> pg_backend_pid()");
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/** What the store's listening connections last ran (their LISTEN and UNLISTEN statements). */
async function listeningStatements(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ query: string }>("SELECT query FROM pg_stat_activity WHERE datname = current_database() AND (query LIKE 'LISTEN dagent_%' OR query LIKE 'UNLISTEN dagent_%') AND pid <> pg_backend_pid()");
    return rows.map((row) => row.query);
  } finally {
    await client.end();
  }
}

/** The store as a follower reads it, each statement it runs counted (its reads are prepared, not built). */
function countingReads(store: Store): { watched: { db: Store['db']; dialect: 'postgres'; url: string }; reads: { count: number } } {
  const reads = { count: 0 };
  const counting: KyselyPlugin = {
    transformQuery: ({ node }) => node,
    transformResult: async ({ result }) => {
      reads.count += 1;
      return result;
    },
  };
  return { watched: { db: store.db.withPlugin(counting), dialect: 'postgres', url: store.url }, reads };
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
      const run = await createRun(store.db, { task: 'a report of the run', workspace: '/w', mode: 'plan' });
      const { watched, reads } = countingReads(store);
      const seen: SessionEvent[] = [];
      const follower = await followRun(watched, run.id, { afterSeq: 0, types: ['node/succeeded'], signal: new AbortController().signal, pollMs: 60_000, onEvents: (events) => seen.push(...events) });
      const { writes } = runLog(watched.db, run.id);
      const succeededMark = writes.markOfTypes(['node/succeeded']);
      const startedMark = writes.markOfTypes(['node/started']);
      reads.count = 0;

      // Another process's work on the run (the scheduler's starts): nothing this follower wants.
      for (const nodeId of ['a', 'b', 'c']) await runLog(writer.db, run.id).append({ type: 'node/started', nodeId, payload: { attempt: 1 } });
      await vi.waitFor(() => expect(writes.markOfTypes(['node/started'])).toBe(startedMark! + 3), { timeout: 5_000, interval: 20 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reads.count).toBe(0);
      expect(writes.markOfTypes(['node/succeeded'])).toBe(succeededMark);

      await runLog(writer.db, run.id).append({ type: 'node/succeeded', nodeId: 'a', payload: { result: 'done' } });
      await vi.waitFor(() => expect(seen.map((event) => event.type)).toEqual(['node/succeeded']), { timeout: 5_000, interval: 20 });
      expect(reads.count).toBeGreaterThan(0);
      await follower.stop();
    } finally {
      await writer.close();
      await cleanup();
    }
  });

  it.skipIf(!postgres.available)("a follower of control events only (a worker's watch) is not woken by the run's other inserts, and hears a cancel at once", async () => {
    const { store, cleanup } = await postgres.open();
    const writer = await openDatabase(store.url);
    try {
      const run = await createRun(store.db, { task: 'a worker watching its run', workspace: '/w', mode: 'plan' });
      const { watched, reads } = countingReads(store);
      const seen: SessionEvent[] = [];
      const follower = await followRun(watched, run.id, { afterSeq: 0, types: ['run/cancel-requested'], signal: new AbortController().signal, pollMs: 60_000, onEvents: (events) => seen.push(...events) });
      const { writes } = runLog(watched.db, run.id);
      const toldMark = writes.markOfTypes(['node/told']);
      reads.count = 0;

      // The process listens on the control channel, not on every insert of the run.
      expect(await listeningStatements(store.url)).toEqual(['LISTEN dagent_control; LISTEN dagent_memories']);
      for (const nodeId of ['a', 'b', 'c']) await runLog(writer.db, run.id).append({ type: 'node/started', nodeId, payload: { attempt: 1 } });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(reads.count).toBe(0);
      // What it does not hear, it cannot vouch for: a mark of those types is unknown, and the store is asked.
      expect(writes.markOfTypes(['node/started'])).toBeUndefined();
      expect(writes.markOfTypes(['node/told'])).toBe(toldMark);

      await runLog(writer.db, run.id).append({ type: 'run/cancel-requested', payload: { by: 'another host' } });
      await vi.waitFor(() => expect(seen.map((event) => event.type)).toEqual(['run/cancel-requested']), { timeout: 5_000, interval: 20 });
      expect(reads.count).toBeGreaterThan(0);
      await follower.stop();
    } finally {
      await writer.close();
      await cleanup();
    }
  });

  it.skipIf(!postgres.available)('a statement that inserts control events notifies the control channel with those types only; one without any does not', async () => {
    const { store, cleanup } = await postgres.open();
    const listener = new pg.Client({ connectionString: store.url });
    await listener.connect();
    try {
      const run = await createRun(store.db, { task: 'the control types', workspace: '/w', mode: 'plan' });
      const heard: string[] = [];
      listener.on('notification', (message) => message.channel === CONTROL_NOTIFY_CHANNEL && heard.push(message.payload ?? ''));
      await listener.query(`LISTEN ${CONTROL_NOTIFY_CHANNEL}`);
      // Rows as any process writes them (the trigger looks at the type only): every control type and a message, in one statement; then a message alone.
      const insert = (types: readonly string[], from: number) =>
        listener.query("INSERT INTO events (run_id, seq, node_id, turn, step, type, payload, created_at) SELECT $1, $2 + ord, 'n', 1, 0, type, '{}', '2026-12-06T00:00:00.000Z' FROM unnest($3::text[]) WITH ORDINALITY AS t(type, ord)", [run.id, from, types]);
      await insert([...CONTROL_EVENT_TYPES, 'user/message'], 100);
      await insert(['user/message', 'assistant/message'], 200);
      await listener.query(`SELECT pg_notify('${CONTROL_NOTIFY_CHANNEL}', 'end')`);

      await vi.waitFor(() => expect(heard.at(-1)).toBe('end'), { timeout: 5_000, interval: 20 });
      const named = heard.slice(0, -1).map((payload) => [payload.split(' ')[0], payload.split(' ')[1]?.split(',').sort()]);
      expect(named).toEqual([[run.id, [...CONTROL_EVENT_TYPES].sort()]]);
    } finally {
      await listener.end();
      await cleanup();
    }
  });
});
