import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, approvePlan, createRun, savePlan, type Approver, type NodeRuntime, type Plan, type RunRecord, type Store } from '../../../engine/index.js';
import type { RunWorkspace } from '../../../engine/dispatch/execute-node-job.js';
import type { JobQueue } from '../../../engine/dispatch/job-queue.js';
import { startNodeWorker, type NodeWorker } from '../../../engine/dispatch/node-worker.js';
import { createScriptedProvider } from '../../../engine/model/scripted-provider.js';
import { contractStores } from '../../helpers/contract-stores.js';
import { FakeNodeFiles } from '../../helpers/fake-node-files.js';
import { FakeTools } from '../../helpers/fake-tools.js';
import { until } from '../../helpers/wait-until.js';

const postgres = contractStores().find((backend) => backend.name === 'postgres')!;

const PLAN: Plan = {
  goal: 'Read one file',
  rationale: 'One read node.',
  nodes: [{ id: 'read-a', kind: 'read', title: 'Read a', instructions: 'Read src/a.ts.', reads: ['src/a.ts'], writes: [], dependsOn: [] }],
};

const approver: Approver = { interactive: false, ask: async () => ({ decision: 'no' }) };
const queue: JobQueue = { enqueueNodes: async () => undefined, lockedSince: async () => new Map(), dropLeftoverNodeJobs: async () => new Map(), close: async () => undefined };

/** A worker readies itself for a run as soon as the run is dispatched, before any job of it. */
describe.skipIf(!postgres.available)('a node worker on postgres', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let worker: NodeWorker | undefined;
  beforeEach(async () => ({ store, cleanup } = await postgres.open()));
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await cleanup();
  });

  it("opens a dispatched run's workspace before any job of it arrives, and lets go of it when the run ends", async () => {
    const run = await createRun(store.db, { task: PLAN.goal, workspace: '/repo', mode: 'plan' });
    await savePlan(store.db, run.id, { plan: PLAN, reason: 'planned' });
    await approvePlan(store.db, run.id);
    const opened: RunRecord[] = [];
    const ended: string[] = [];
    const provider = createScriptedProvider({ script: { agents: {} } });
    const runtime: NodeRuntime = { workspace: '/repo', tools: new FakeTools({}), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => [] };
    worker = await startNodeWorker({
      connectionString: store.url,
      db: store.db,
      queue,
      concurrency: 1,
      workspaceFor: async (opening): Promise<RunWorkspace> => {
        opened.push(opening);
        return { runtime, files: new FakeNodeFiles() };
      },
      onRunEnded: async (runId) => void ended.push(runId),
    });
    const log = new EventLog(store.db, run.id);

    // The run's scheduler dispatches it to workers: no job is on the queue yet.
    await log.append({ type: 'dispatch/started', payload: { mode: 'shared' } });
    await until('the run opened ahead', () => opened.length > 0);

    expect(opened.map((record) => [record.id, record.workspace])).toEqual([[run.id, '/repo']]);
    expect(ended).toEqual([]);

    await store.db.updateTable('runs').set({ status: 'running' }).where('id', '=', run.id).execute();
    await log.append({ type: 'run/started', payload: { pid: process.pid, host: 'here', planVersion: 1 } });
    await log.append({ type: 'run/succeeded', payload: {} });
    await until('the run let go of', () => ended.length > 0);

    expect(ended).toEqual([run.id]);
    expect(opened).toHaveLength(1);
  });
});
