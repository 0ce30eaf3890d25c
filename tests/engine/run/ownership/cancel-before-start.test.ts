import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvePlan, claimRun, createRun, executeRun, readEvents, runLog, savePlan, type Approver, type NodeRuntime, type Plan, type Store } from '../../../../engine/index.js';
import { createScriptedProvider } from '../../../../engine/model/scripted-provider.js';
import { contractStores } from '../../../helpers/contract-stores.js';
import { FakeNodeFiles } from '../../../helpers/fake-node-files.js';
import { FakeTools } from '../../../helpers/fake-tools.js';

const approver: Approver = { interactive: false, ask: async () => ({ decision: 'no' }) };
const PLAN: Plan = {
  goal: 'Look twice',
  rationale: 'Two reads in a row.',
  nodes: [
    { id: 'first', kind: 'read', title: 'Look', instructions: '', reads: [], writes: [], dependsOn: [] },
    { id: 'second', kind: 'read', title: 'Look again', instructions: '', reads: [], writes: [], dependsOn: ['first'] },
  ],
};

/**
 * `dagent cancel` from another host only appends `run/cancel-requested`. One that lands after a
 * process took the run's lease but before its `run/started` is for that process: the run must
 * stop, not run to its end.
 */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`a cancel request between the lease and run/started, on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await backend.open()));
    afterEach(async () => cleanup());

    it('cancels the run before any node starts', async () => {
      const run = await createRun(store.db, { task: PLAN.goal, workspace: '/repo', mode: 'plan' });
      await savePlan(store.db, run.id, { plan: PLAN, reason: 'planned' });
      await approvePlan(store.db, run.id);
      const provider = createScriptedProvider({ script: { agents: { 'node:first': [{ text: 'seen' }], 'node:second': [{ text: 'seen again' }] } } });
      const runtime: NodeRuntime = { workspace: '/repo', tools: new FakeTools({}), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => undefined };

      const lease = await claimRun(store.db, run.id);
      // The window: the lease is taken, `run/started` is not yet appended.
      await runLog(store.db, run.id).append({ type: 'run/cancel-requested', payload: { by: 'pid 4242 on elsewhere' } });
      const result = await executeRun({
        db: store.db,
        runId: run.id,
        runtime,
        files: new FakeNodeFiles(),
        signal: new AbortController().signal,
        fleet: { leaseSeq: lease.seenSeq },
      });
      await lease.release();

      expect(result.status).toBe('cancelled');
      const events = await readEvents(store.db, run.id);
      expect(events.find((event) => event.type === 'run/cancelled')?.payload).toMatchObject({ reason: 'cancel requested by pid 4242 on elsewhere' });
      expect(events.some((event) => event.type === 'node/succeeded')).toBe(false);
    });
  });
}
