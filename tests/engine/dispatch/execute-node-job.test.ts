import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventLog, approvePlan, createRun, readEvents, savePlan, type Approver, type EventQuery, type NodeRuntime, type Plan, type Store } from '../../../engine/index.js';
import { executeNodeJob } from '../../../engine/dispatch/execute-node-job.js';
import type { JobQueue } from '../../../engine/dispatch/job-queue.js';
import { readNodeClaim } from '../../../engine/dispatch/node-claim.js';
import type { ModelProvider } from '../../../engine/model/model-provider.js';
import { createScriptedProvider } from '../../../engine/model/scripted-provider.js';
import { contractStores } from '../../helpers/contract-stores.js';
import { FakeNodeFiles } from '../../helpers/fake-node-files.js';
import { FakeTools, toolOk } from '../../helpers/fake-tools.js';

const PLAN: Plan = {
  goal: 'Read one file',
  rationale: 'One read node.',
  nodes: [{ id: 'read-a', kind: 'read', title: 'Read a', instructions: 'Read src/a.ts and say what it exports.', reads: ['src/a.ts'], writes: [], dependsOn: [] }],
};

const CLAIM_TTL_MS = 400;

/** Holds this process's event loop (no timer, no renewal runs meanwhile). */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const approver: Approver = { interactive: false, ask: async () => ({ decision: 'no' }) };

const queue: JobQueue = {
  enqueueNodes: async () => undefined,
  lockedSince: async () => new Map(),
  dropLeftoverNodeJobs: async () => new Map(),
  close: async () => undefined,
};

/** A node attempt on a worker, run in this process: claimed, run, its outcome committed under the claim. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`a worker's node attempt on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await backend.open()));

    /** The plan approved and running, its node started by the scheduler (attempt 1): what a worker's job finds. */
    async function runningWithNodeStarted(): Promise<{ readonly id: string }> {
      const run = await createRun(store.db, { task: PLAN.goal, workspace: '/repo', mode: 'plan' });
      await savePlan(store.db, run.id, { plan: PLAN, reason: 'planned' });
      await approvePlan(store.db, run.id);
      await store.db.updateTable('runs').set({ status: 'running' }).where('id', '=', run.id).execute();
      await new EventLog(store.db, run.id).append({ type: 'node/started', nodeId: 'read-a', payload: { attempt: 1 } });
      return run;
    }
    afterEach(async () => {
      vi.restoreAllMocks();
      await cleanup();
    });

    it("begins a fresh attempt at its marker: the node's own log and compaction state are not read back", async () => {
      const run = await runningWithNodeStarted();
      const provider = createScriptedProvider({ script: { agents: { 'node:read-a': [{ text: 'a.ts exports area()' }] } } });
      const runtime: NodeRuntime = { workspace: '/repo', tools: new FakeTools({}), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => [] };
      const nodeReads: EventQuery[] = [];
      const read = EventLog.prototype.read;
      vi.spyOn(EventLog.prototype, 'read').mockImplementation(function (this: EventLog, query: EventQuery = {}) {
        if (query.nodeId === 'read-a') nodeReads.push(query);
        return read.call(this, query);
      } as typeof read);

      const outcome = await executeNodeJob(
        { runId: run.id, nodeId: 'read-a', attempt: 1, dispatchKey: `${run.id}:read-a:1:0:1` },
        { db: store.db, queue, worker: 'host-a/1/aa', claimTtlMs: 60_000, signal: new AbortController().signal, workspaceFor: async () => ({ runtime, files: new FakeNodeFiles() }) },
      );

      expect(outcome).toBe('committed');
      const finished = await readEvents(store.db, run.id, { types: ['attempt/finished'] });
      expect(finished.map((event) => event.payload)).toEqual([expect.objectContaining({ outcome: 'succeeded', answer: 'a.ts exports area()' })]);
      // Only the steering look-ups read the node's events (messages told to it while it runs).
      expect(nodeReads.filter((query) => !query.types?.includes('node/told'))).toEqual([]);
    });

    it("hands the node its direct dependencies' results, as the scheduler's process does: not theirs before them", async () => {
      const chain: Plan = {
        goal: 'Rename area',
        rationale: 'Read, decide, report.',
        nodes: [
          { id: 'read-a', kind: 'read', title: 'Read a', instructions: 'Read src/a.ts.', reads: ['src/a.ts'], writes: [], dependsOn: [] },
          { id: 'decide', kind: 'read', title: 'Decide the name', instructions: 'Pick the new name.', reads: [], writes: [], dependsOn: ['read-a'] },
          { id: 'report', kind: 'read', title: 'Report', instructions: 'Say what changes.', reads: [], writes: [], dependsOn: ['decide'] },
        ],
      };
      const run = await createRun(store.db, { task: chain.goal, workspace: '/repo', mode: 'plan' });
      await savePlan(store.db, run.id, { plan: chain, reason: 'planned' });
      await approvePlan(store.db, run.id);
      await store.db.updateTable('runs').set({ status: 'running' }).where('id', '=', run.id).execute();
      const log = new EventLog(store.db, run.id);
      for (const [nodeId, result] of [['read-a', 'a.ts exports area()'], ['decide', 'call it surface()']] as const) {
        await log.append({ type: 'node/started', nodeId, payload: { attempt: 1 } });
        await log.append({ type: 'node/succeeded', nodeId, payload: { result } });
      }
      await log.append({ type: 'node/started', nodeId: 'report', payload: { attempt: 1 } });
      const provider = createScriptedProvider({ script: { agents: { 'node:report': [{ text: 'area() becomes surface()' }] } } });
      const runtime: NodeRuntime = { workspace: '/repo', tools: new FakeTools({}), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => [] };

      const outcome = await executeNodeJob(
        { runId: run.id, nodeId: 'report', attempt: 1, dispatchKey: `${run.id}:report:1:0:1` },
        { db: store.db, queue, worker: 'host-a/1/aa', claimTtlMs: 60_000, signal: new AbortController().signal, workspaceFor: async () => ({ runtime, files: new FakeNodeFiles() }) },
      );

      expect(outcome).toBe('committed');
      const told = (await readEvents(store.db, run.id, { nodeId: 'report', types: ['user/message'] })).map((event) => String(event.payload.content));
      expect(told.filter((text) => text.startsWith('Result of '))).toEqual(['Result of decide (Decide the name):\ncall it surface()']);
    });

    it('commits no outcome once its claim ran out by its own clock: the node is left for another worker, not failed', async () => {
      const run = await runningWithNodeStarted();
      const scripted = createScriptedProvider({ script: { agents: { 'node:read-a': [{ toolCalls: [{ id: 'r1', name: 'read_file', args: { path: 'src/a.ts' } }] }, { text: 'a.ts exports area()' }] } } });
      // The worker's process is stalled (a paused process, a starved host) past its claim's time while the model answers.
      const provider: ModelProvider = { ...scripted, stream: (request, signal) => (stall(CLAIM_TTL_MS * 1.5), scripted.stream(request, signal)) };
      const runtime: NodeRuntime = { workspace: '/repo', tools: new FakeTools({ read_file: () => toolOk('export const area = 1;') }), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => [] };
      const reports: string[] = [];

      const outcome = await executeNodeJob(
        { runId: run.id, nodeId: 'read-a', attempt: 1, dispatchKey: `${run.id}:read-a:1:0:1` },
        { db: store.db, queue, worker: 'host-a/1/aa', claimTtlMs: CLAIM_TTL_MS, signal: new AbortController().signal, workspaceFor: async () => ({ runtime, files: new FakeNodeFiles() }), report: (line) => reports.push(line) },
      );

      expect(outcome).toBe('stale');
      expect(await readEvents(store.db, run.id, { types: ['attempt/finished'] })).toEqual([]);
      expect(reports.at(-1)).toMatch(/read-a .*claim token 1 expired by this worker's clock/);
      // Released, so the scheduler queues the node again without waiting for the claim to run out.
      expect(await readNodeClaim(store.db, run.id, 'read-a')).toMatchObject({ token: 1, alive: false });
    });
  });
}
