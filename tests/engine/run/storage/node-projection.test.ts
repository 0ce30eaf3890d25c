import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KyselyPlugin } from 'kysely';
import { EventLog, createRun, readEvents, runLog, type EventDraft, type NodeTransition, type Store } from '../../../../engine/index.js';
import { appendNodeTransitions, writeNodeProjection, type NodeTotals } from '../../../../engine/run/storage/node-projection.js';
import { contractStores } from '../../../helpers/contract-stores.js';

const describeResult = (result: string) => ({ result });

function succeeded(nodeId: string, attempts = 1): NodeTransition<string> {
  return { kind: 'succeeded', to: 'succeeded', from: 'running', nodeId, attempts, result: `${nodeId} done` };
}

/** The `nodes` projection as the engine keeps it, on every backend. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`nodes projection: ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let runId: string;
    beforeEach(async () => {
      ({ store, cleanup } = await backend.open());
      runId = (await createRun(store.db, { task: 'rename area()', workspace: '/repo', mode: 'plan' })).id;
    });
    afterEach(async () => cleanup());

    async function pendingRows(ids: readonly string[]): Promise<void> {
      await store.db
        .insertInto('nodes')
        .values(ids.map((node_id) => ({ run_id: runId, node_id, plan_version: 1, status: 'pending', attempts: 0, started_at: null, finished_at: null, result: null, error: null, input_tokens: 0, output_tokens: 0, cache_hit_tokens: 0, reasoning_tokens: 0, cost_usd: 0 })))
        .execute();
    }

    async function rows() {
      const all = await store.db.selectFrom('nodes').selectAll().where('run_id', '=', runId).orderBy('node_id').execute();
      return new Map(all.map((row) => [row.node_id, row]));
    }

    it("stores a node's key in the same append as its success, just before it, with its dependent's start", async () => {
      await pendingRows(['read', 'edit']);
      const log = runLog(store.db, runId);
      const deliveries: string[][] = [];
      log.onAppend((events) => deliveries.push(events.map((event) => `${event.type} ${event.nodeId}`)));
      const keyed: EventDraft = { type: 'node/keyed', nodeId: 'read', payload: { key: 'k1', planVersion: 1, inputs: { spec: 's', model: 'scripted:m', dependencies: {}, files: {} } } };
      const describe = (result: string) => ({ result, ...(result === 'read done' ? { before: [keyed] } : {}) });
      await appendNodeTransitions(log, [succeeded('read'), { kind: 'started', to: 'running', from: 'ready', nodeId: 'edit', attempts: 1 }], { planVersion: 1, describe });

      expect(deliveries).toEqual([['node/keyed read', 'node/succeeded read', 'node/started edit']]);
      const events = (await readEvents(store.db, runId)).filter((event) => event.nodeId !== null);
      expect(events.map((event) => event.type)).toEqual(['node/keyed', 'node/succeeded', 'node/started']);
      expect(new Set(events.map((event) => event.createdAt)).size).toBe(1);
      expect((await rows()).get('read')).toMatchObject({ status: 'succeeded', result: 'read done' });
    });

    it('settles a whole group of nodes: status, attempts, start and end, result or error, totals', async () => {
      const ids = Array.from({ length: 23 }, (_, index) => `edit-${String(index).padStart(2, '0')}`);
      await pendingRows([...ids, 'flaky', 'stopped']);
      const started = new Map<string, string>();
      const totals = new Map<string, NodeTotals>([['edit-07', { input: 12_000, output: 800, cacheHit: 9_000, reasoning: 120, costUsd: 0.0421 }]]);
      const context = { planVersion: 1, describe: describeResult, started, totals: (id: string) => totals.get(id) };
      const starts = [...ids, 'flaky', 'stopped'].map((nodeId): NodeTransition<string> => ({ kind: 'started', to: 'running', from: 'ready', nodeId, attempts: 1 }));
      await writeNodeProjection(store.db, runId, starts, { ...context, at: '2026-11-30T10:00:00.000Z' });
      expect((await rows()).get('edit-00')!.status).toBe('pending'); // running lives in the log only

      await writeNodeProjection(
        store.db,
        runId,
        [
          ...ids.map((id) => succeeded(id)),
          { kind: 'failed', to: 'failed', from: 'running', nodeId: 'flaky', attempts: 3, error: 'tsc: 2 errors' },
          { kind: 'cancelled', to: 'cancelled', from: 'running', nodeId: 'stopped', attempts: 1, reason: 'user pressed Ctrl-C' },
        ],
        { ...context, at: '2026-11-30T10:00:05.000Z' },
      );
      const after = await rows();
      expect([...after.values()].filter((row) => row.status === 'succeeded')).toHaveLength(23);
      expect(after.get('edit-07')).toMatchObject({
        status: 'succeeded', attempts: 1, started_at: '2026-11-30T10:00:00.000Z', finished_at: '2026-11-30T10:00:05.000Z', result: 'edit-07 done', error: null,
        input_tokens: 12_000, output_tokens: 800, cache_hit_tokens: 9_000, reasoning_tokens: 120,
      });
      expect(Number(after.get('edit-07')!.cost_usd)).toBeCloseTo(0.0421, 6);
      expect(after.get('flaky')).toMatchObject({ status: 'failed', attempts: 3, error: 'tsc: 2 errors', result: null });
      expect(after.get('stopped')).toMatchObject({ status: 'cancelled', error: 'user pressed Ctrl-C' });
    });

    it('keeps the times and totals of earlier attempts when a node is skipped on resume', async () => {
      await pendingRows(['edit']);
      const context = { planVersion: 1, describe: describeResult, totals: () => ({ input: 500, output: 50, cacheHit: 0, reasoning: 0, costUsd: 0.001 }) };
      await writeNodeProjection(store.db, runId, [{ kind: 'failed', to: 'failed', from: 'running', nodeId: 'edit', attempts: 1, error: 'boom' }], { ...context, at: '2026-11-30T10:00:00.000Z' });
      await writeNodeProjection(
        store.db,
        runId,
        [{ kind: 'skipped', to: 'skipped', from: 'pending', nodeId: 'edit', attempts: 1, blockedBy: 'read', reason: 'dependency "read" failed' }],
        { ...context, at: '2026-11-30T11:00:00.000Z' },
      );
      expect((await rows()).get('edit')).toMatchObject({ status: 'skipped', error: 'dependency "read" failed', finished_at: '2026-11-30T10:00:00.000Z', input_tokens: 500 });
    });

    it('stores a settling group with its events, the rows as the log has them (PostgreSQL: all in one statement)', async () => {
      await pendingRows(['edit', 'test']);
      let statements = 0;
      // Counted as they answer: the builder's queries and the prepared ones (not a transaction's begin and commit).
      const counting: KyselyPlugin = { transformQuery: ({ node }) => node, transformResult: async ({ result }) => ((statements += 1), result) };
      const log = new EventLog(store.db.withPlugin(counting), runId, { now: () => new Date('2026-11-30T10:00:05.000Z') });
      const started = new Map([['edit', '2026-11-30T10:00:00.000Z']]);

      await appendNodeTransitions(
        log,
        [succeeded('edit'), { kind: 'skipped', to: 'skipped', from: 'pending', nodeId: 'test', attempts: 0, blockedBy: 'edit', reason: 'not needed' }],
        { planVersion: 1, describe: describeResult, started, totals: () => ({ input: 10, output: 2, cacheHit: 0, reasoning: 0, costUsd: 0.5 }) },
      );

      if (backend.name === 'postgres') expect(statements).toBe(1);
      const events = await readEvents(store.db, runId, { types: ['node/succeeded', 'node/skipped'] });
      expect(events.map((event) => [event.type, event.nodeId, event.createdAt])).toEqual([
        ['node/succeeded', 'edit', '2026-11-30T10:00:05.000Z'],
        ['node/skipped', 'test', '2026-11-30T10:00:05.000Z'],
      ]);
      const after = await rows();
      expect(after.get('edit')).toMatchObject({ status: 'succeeded', started_at: '2026-11-30T10:00:00.000Z', finished_at: '2026-11-30T10:00:05.000Z', result: 'edit done', input_tokens: 10, plan_version: 1 });
      expect(Number(after.get('edit')!.cost_usd)).toBeCloseTo(0.5, 6);
      expect(after.get('test')).toMatchObject({ status: 'skipped', error: 'not needed', finished_at: null });
    });

    it('settles many nodes from several writers at once: every row as its last event says, the seqs gap-free', async () => {
      const ids = Array.from({ length: 40 }, (_, index) => `n${index}`);
      await pendingRows(ids);
      const writers = Array.from({ length: 4 }, () => new EventLog(store.db, runId));
      const context = { planVersion: 1, describe: describeResult };
      // Each node succeeds, then the same node is skipped by another writer: both settle the row, in the order of their events.
      await Promise.all(ids.map((id, index) => appendNodeTransitions(writers[index % 4]!, [succeeded(id)], context)));
      await Promise.all(ids.map((id, index) => appendNodeTransitions(writers[(index + 1) % 4]!, [{ kind: 'skipped', to: 'skipped', from: 'succeeded', nodeId: id, attempts: 1, blockedBy: 'x', reason: `again ${id}` }], context)));

      const events = await readEvents(store.db, runId);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 1 + 80 }, (_, index) => index + 1));
      const after = await rows();
      for (const id of ids) expect(after.get(id)).toMatchObject({ status: 'skipped', error: `again ${id}`, result: `${id} done` });
    });

    it('ends a node that settled twice in one group in its last state', async () => {
      await pendingRows(['edit', 'test']);
      await writeNodeProjection(
        store.db,
        runId,
        [
          { kind: 'failed', to: 'failed', from: 'running', nodeId: 'edit', attempts: 1, error: 'first try' },
          { kind: 'reset', to: 'pending', from: 'failed', nodeId: 'edit', attempts: 1, cause: 'amend' },
          { kind: 'skipped', to: 'skipped', from: 'pending', nodeId: 'edit', attempts: 1, blockedBy: 'hint', reason: 'dependency "hint" failed' },
          succeeded('test'),
        ],
        { planVersion: 2, describe: describeResult, at: '2026-11-30T10:00:00.000Z' },
      );
      const after = await rows();
      expect(after.get('edit')).toMatchObject({ status: 'skipped', error: 'dependency "hint" failed', finished_at: '2026-11-30T10:00:00.000Z', plan_version: 1 });
      expect(after.get('test')).toMatchObject({ status: 'succeeded', result: 'test done' });
    });
  });
}
