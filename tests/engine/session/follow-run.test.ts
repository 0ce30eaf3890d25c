import { setTimeout as sleep } from 'node:timers/promises';
import type { KyselyPlugin } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { createRun, followRun, openDatabase, runLog, type SessionEvent } from '../../../engine/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

describe.each(contractStores())('following a run by seq ($name)', (factory) => {
  it.skipIf(!factory.available)('gets every event another connection appends, once, in order, without gaps', async () => {
    const { store, cleanup } = await factory.open();
    const writer = await openDatabase(store.url);
    try {
      const run = await createRun(store.db, { task: 'follow me', workspace: '/w', mode: 'plan' });
      const seen: SessionEvent[] = [];
      const stop = new AbortController();
      // PostgreSQL's safety poll is 10 × pollMs: at a minute per poll, only LISTEN/NOTIFY can deliver in time.
      const follower = await followRun(store, run.id, { afterSeq: 0, signal: stop.signal, pollMs: factory.name === 'postgres' ? 60_000 : 20, onEvents: (events) => seen.push(...events) });
      expect(seen.map((event) => event.type)).toEqual(['run/created']);

      const log = runLog(writer.db, run.id);
      for (let index = 1; index <= 10; index += 1) await log.append({ type: 'node/started', nodeId: `n${index}`, payload: { attempt: 1 } });
      await log.appendMany(Array.from({ length: 20 }, (_, index) => ({ type: 'node/succeeded' as const, nodeId: `m${index}`, payload: { result: 'ok' } })));

      await vi.waitFor(() => expect(seen).toHaveLength(31), { timeout: 5_000, interval: 20 });
      expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: 31 }, (_, index) => index + 1));
      expect(follower.lastSeq).toBe(31);
      stop.abort();
      await follower.stop();
    } finally {
      await writer.close();
      await cleanup();
    }
  });

  it.skipIf(!factory.available)('of chosen types, gets only those, from this process and from others, once, in order', async () => {
    const { store, cleanup } = await factory.open();
    const writer = await openDatabase(store.url);
    try {
      const run = await createRun(store.db, { task: 'watch for a cancel', workspace: '/w', mode: 'plan' });
      const seen: SessionEvent[] = [];
      const stop = new AbortController();
      const follower = await followRun(store, run.id, { afterSeq: 1, types: ['run/cancel-requested', 'run/cancelled'], signal: stop.signal, pollMs: factory.name === 'postgres' ? 60_000 : 20, onEvents: (events) => seen.push(...events) });

      const theirs = runLog(writer.db, run.id);
      for (let index = 1; index <= 5; index += 1) await theirs.append({ type: 'node/started', nodeId: `n${index}`, payload: { attempt: 1 } });
      await theirs.append({ type: 'run/cancel-requested', payload: { by: 'another host' } });
      await runLog(store.db, run.id).append({ type: 'node/succeeded', nodeId: 'n1', payload: { result: 'ok' } });
      await runLog(store.db, run.id).append({ type: 'run/cancelled', payload: {} });

      await vi.waitFor(() => expect(seen.map((event) => event.type)).toEqual(['run/cancel-requested', 'run/cancelled']), { timeout: 5_000, interval: 20 });
      expect(seen.map((event) => event.seq)).toEqual([7, 9]);
      expect(follower.lastSeq).toBe(9);
      stop.abort();
      await follower.stop();
    } finally {
      await writer.close();
      await cleanup();
    }
  });

  it.skipIf(!factory.available)("hands over this process's appends as they commit, from the run's one live log", async () => {
    const { store, cleanup } = await factory.open();
    try {
      const run = await createRun(store.db, { task: 'live', workspace: '/w', mode: 'plan' });
      const seen: number[] = [];
      const stop = new AbortController();
      const follower = await followRun(store, run.id, { afterSeq: 1, signal: stop.signal, pollMs: 3_600_000, onEvents: (events) => seen.push(...events.map((event) => event.seq)) });
      await runLog(store.db, run.id).append({ type: 'run/started', payload: {} });
      await runLog(store.db, run.id).append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
      // No poll runs in the hour this test allows it: the live log (or PostgreSQL's NOTIFY) brought them.
      await vi.waitFor(() => expect(seen).toEqual([2, 3]), { timeout: 2_000, interval: 10 });
      await follower.stop();
      await runLog(store.db, run.id).append({ type: 'node/succeeded', nodeId: 'a', payload: { result: 'ok' } });
      expect(seen).toEqual([2, 3]);
    } finally {
      await cleanup();
    }
  });

  it.skipIf(!factory.available || factory.name !== 'postgres')("reads the store after another process's insert, not after the notification of its own (PostgreSQL)", async () => {
    const { store, cleanup } = await factory.open();
    const writer = await openDatabase(store.url);
    try {
      let statements = 0;
      const counting: KyselyPlugin = { transformQuery: ({ node }) => node, transformResult: async ({ result }) => ((statements += 1), result) };
      const db = store.db.withPlugin(counting);
      const run = await createRun(db, { task: 'live', workspace: '/w', mode: 'plan' });
      const seen: number[] = [];
      const stop = new AbortController();
      const follower = await followRun({ db, dialect: 'postgres', url: store.url, ...(store.ownBackends === undefined ? {} : { ownBackends: store.ownBackends }) }, run.id, { afterSeq: 1, signal: stop.signal, pollMs: 3_600_000, onEvents: (events) => seen.push(...events.map((event) => event.seq)) });
      const ours = statements;
      await runLog(db, run.id).append({ type: 'run/started', payload: {} });
      // Longer than the follower waits for more notifications before it reads.
      await sleep(200);
      expect(seen).toEqual([2]);
      expect(statements).toBe(ours + 1);

      await runLog(writer.db, run.id).append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
      await vi.waitFor(() => expect(seen).toEqual([2, 3]), { timeout: 2_000, interval: 10 });
      expect(statements).toBe(ours + 2);
      await follower.stop();
    } finally {
      await writer.close();
      await cleanup();
    }
  });
});
