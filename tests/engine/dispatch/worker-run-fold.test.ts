import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, approvePlan, createRun, getRun, savePlan, type Plan, type Store } from '../../../engine/index.js';
import { WorkerRunFold } from '../../../engine/dispatch/worker-run-fold.js';
import { contractStores } from '../../helpers/contract-stores.js';

/** What a worker keeps of a run between its nodes: read as the log grows, never behind what a node needs. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`a worker's fold of a run on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await backend.open()));
    afterEach(async () => cleanup());

    const succeeded = (nodeId: string) => ({ type: 'node/succeeded' as const, nodeId, payload: { result: `${nodeId} done`, filesChanged: [] } });

    it('folds in what was appended since its last read: outcomes, boundaries, the latest budget; model answers are counted only when asked', async () => {
      const run = await createRun(store.db, { task: 'fold', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      let reads = 0;
      const counting: KyselyPlugin = { transformQuery: ({ node }) => node, transformResult: async ({ result }) => ((reads += 1), result) };
      const fold = new WorkerRunFold(store.db.withPlugin(counting), run.id);
      await log.appendMany([
        { type: 'budget/set', payload: { maxCostUsd: 5, source: 'flags' } },
        { type: 'node/snapshotted', nodeId: 'read-a', turn: 1, payload: { attempt: 1, boundary: { kind: 'a' } } },
        succeeded('read-a'),
      ]);

      await fold.refresh();
      expect([...fold.memory.completed.keys()]).toEqual(['read-a']);
      expect(fold.budget).toEqual({ maxCostUsd: 5 });

      const started = await log.append({ type: 'node/snapshotted', nodeId: 'edit-b', turn: 1, payload: { attempt: 1, boundary: { kind: 'b' } } });
      await log.appendMany([
        { type: 'assistant/message', nodeId: 'edit-b', payload: { content: 'working', toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'scripted' } },
        { type: 'budget/set', payload: { maxCostUsd: 9, source: 'recorded' } },
      ]);
      await fold.refresh();

      expect(reads).toBe(2);
      expect(fold.budget).toEqual({ maxCostUsd: 9 });
      expect(fold.memory.boundaries.get('edit-b')).toEqual({ kind: 'b' });
      expect(fold.memory.openAttempt('edit-b')).toMatchObject({ fromSeq: started.seq, attempt: 1 });
      expect(await fold.modelCallsSince('edit-b', started.seq)).toBe(1);
    });

    it('reads the approved plan once per version, and the new version once the run names it', async () => {
      const run = await createRun(store.db, { task: 'fold', workspace: '/repo', mode: 'plan' });
      const first: Plan = { goal: 'g', rationale: 'r', nodes: [{ id: 'read-a', kind: 'read', title: 'Read a', instructions: 'Read a.', reads: [], writes: [], dependsOn: [] }] };
      await savePlan(store.db, run.id, { plan: first, reason: 'planned' });
      await approvePlan(store.db, run.id);
      await store.db.updateTable('runs').set({ status: 'running' }).where('id', '=', run.id).execute();
      let planReads = 0;
      const counting: KyselyPlugin = { transformQuery: ({ node }) => ((planReads += node.kind === 'SelectQueryNode' && JSON.stringify(node.from).includes('"plans"') ? 1 : 0), node), transformResult: async ({ result }) => result };
      const fold = new WorkerRunFold(store.db.withPlugin(counting), run.id);

      const [a, b] = await Promise.all([fold.plan(await getRun(store.db, run.id)), fold.plan(await getRun(store.db, run.id))]);
      const again = await fold.plan(await getRun(store.db, run.id));
      expect([a.version, b.version, again.version, planReads]).toEqual([1, 1, 1, 1]);

      const amended: Plan = { ...first, nodes: [...first.nodes, { id: 'read-b', kind: 'read', title: 'Read b', instructions: 'Read b.', reads: [], writes: [], dependsOn: [] }] };
      await savePlan(store.db, run.id, { plan: amended, reason: 'missed work', status: 'approved' });
      const next = await fold.plan(await getRun(store.db, run.id));
      expect(next.version).toBe(2);
      expect(next.plan.nodes.map((node) => node.id)).toEqual(['read-a', 'read-b']);
      expect(planReads).toBe(2);
    });

    // Workers run on PostgreSQL; SQLite's one connection would hold the append behind the held read.
    it.skipIf(backend.name !== 'postgres')('a node that asks while a read is in flight gets a read of its own: an outcome committed before it asked is never missed', async () => {
      const run = await createRun(store.db, { task: 'fold', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let answered!: () => void;
      const firstAnswered = new Promise<void>((resolve) => (answered = resolve));
      let reads = 0;
      // The first read's answer is held back after the store gave it: what it saw is fixed already.
      const holding: KyselyPlugin = {
        transformQuery: ({ node }) => node,
        transformResult: async ({ result }) => {
          reads += 1;
          if (reads === 1) {
            answered();
            await held;
          }
          return result;
        },
      };
      const fold = new WorkerRunFold(store.db.withPlugin(holding), run.id);

      const earlier = fold.refresh();
      await firstAnswered;
      await log.append(succeeded('read-a'));
      const later = fold.refresh();
      const alsoLater = fold.refresh();
      release();
      await Promise.all([earlier, later, alsoLater]);

      expect([...fold.memory.completed.keys()]).toEqual(['read-a']);
      expect(reads).toBe(2);
    });
  });
}
