import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CloneWorkspace, EventLog, approvePlan, createRun, getRun, readEvents, savePlan, type Approver, type EventQuery, type NodeRuntime, type Plan, type Store } from '../../../engine/index.js';
import { executeNodeJob, refreshRunFold, type RunWorkspace } from '../../../engine/dispatch/execute-node-job.js';
import { JobClaims } from '../../../engine/dispatch/job-claims.js';
import type { JobQueue } from '../../../engine/dispatch/job-queue.js';
import { readNodeClaim } from '../../../engine/dispatch/node-claim.js';
import type { ModelProvider } from '../../../engine/model/model-provider.js';
import { createScriptedProvider } from '../../../engine/model/scripted-provider.js';
import { contractStores } from '../../helpers/contract-stores.js';
import { FakeNodeFiles } from '../../helpers/fake-node-files.js';
import { FakeTools, toolOk } from '../../helpers/fake-tools.js';
import { tempDir } from '../../helpers/temp-store.js';
import { gitInit } from './fleet-harness.js';

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

    it("hands the node its dependency's result when the worker's read of the run ran before the scheduler stored that result and the node's start", async () => {
      const chain: Plan = {
        goal: 'Rename area',
        rationale: 'Decide, then report.',
        nodes: [
          { id: 'decide', kind: 'read', title: 'Decide the name', instructions: 'Pick the new name.', reads: [], writes: [], dependsOn: [] },
          { id: 'report', kind: 'read', title: 'Report', instructions: 'Say what changes.', reads: [], writes: [], dependsOn: ['decide'] },
        ],
      };
      const created = await createRun(store.db, { task: chain.goal, workspace: '/repo', mode: 'plan' });
      await savePlan(store.db, created.id, { plan: chain, reason: 'planned' });
      await approvePlan(store.db, created.id);
      await store.db.updateTable('runs').set({ status: 'running' }).where('id', '=', created.id).execute();
      const log = new EventLog(store.db, created.id);
      await log.append({ type: 'node/started', nodeId: 'decide', payload: { attempt: 1 } });
      const run = await getRun(store.db, created.id);
      const provider = createScriptedProvider({ script: { agents: { 'node:report': [{ text: 'area() becomes surface()' }] } } });
      const workspace: RunWorkspace = { runtime: { workspace: '/repo', tools: new FakeTools({}), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => [] }, files: new FakeNodeFiles() };
      const context = { db: store.db, queue, worker: 'host-a/1/aa', claimTtlMs: 60_000, signal: new AbortController().signal, workspaceFor: async () => workspace };
      // The read a claim round begins beside its claim statement (a run this worker has seen) runs first...
      const readBeside = refreshRunFold(context, run);
      await readBeside;
      // ...then the scheduler's write of the dependency's outcome and the node's start lands, and the claim finds the node started.
      await log.appendMany([
        { type: 'node/succeeded', nodeId: 'decide', payload: { result: 'call it surface()' } },
        { type: 'node/started', nodeId: 'report', payload: { attempt: 1 } },
      ]);
      const claims = new JobClaims({ ...context, prefetch: () => readBeside });
      claims.seeRun(run);

      const outcome = await executeNodeJob({ runId: run.id, nodeId: 'report', attempt: 1, dispatchKey: `${run.id}:report:1:0:1` }, { ...context, claims });

      expect(outcome).toBe('committed');
      const told = (await readEvents(store.db, run.id, { nodeId: 'report', types: ['user/message'] })).map((event) => String(event.payload.content));
      expect(told.filter((text) => text.startsWith('Result of '))).toEqual(['Result of decide (Decide the name):\ncall it surface()']);
    });

    it("puts the node's clone at its dependency's patch when the worker's read of the run ran before the scheduler stored that dependency's success", async () => {
      const chain: Plan = {
        goal: 'Close the file',
        rationale: 'Edit, then check.',
        nodes: [
          { id: 'close', kind: 'edit', title: 'Close the file', instructions: 'Append the closing line.', reads: ['src/f.txt'], writes: ['src/f.txt'], dependsOn: [] },
          { id: 'check', kind: 'read', title: 'Check the file', instructions: 'Say whether it is closed.', reads: ['src/f.txt'], writes: [], dependsOn: ['close'] },
        ],
      };
      const folder = tempDir('dagent-clone-prefetch-');
      const origin = join(folder.dir, 'origin');
      mkdirSync(join(origin, 'src'), { recursive: true });
      writeFileSync(join(origin, 'src/f.txt'), 'omega\n');
      gitInit(origin);
      const base = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: origin, encoding: 'utf8' }).trim();
      const clonePath = join(folder.dir, 'clone');
      execFileSync('git', ['clone', '-q', origin, clonePath], { stdio: 'ignore' });
      const patch = 'diff --git a/src/f.txt b/src/f.txt\n--- a/src/f.txt\n+++ b/src/f.txt\n@@ -1 +1,2 @@\n omega\n+closed\n';
      try {
        const created = await createRun(store.db, { task: chain.goal, workspace: origin, mode: 'plan' });
        await savePlan(store.db, created.id, { plan: chain, reason: 'planned' });
        await approvePlan(store.db, created.id);
        await store.db.updateTable('runs').set({ status: 'running' }).where('id', '=', created.id).execute();
        const log = new EventLog(store.db, created.id);
        await log.append({ type: 'node/started', nodeId: 'close', payload: { attempt: 1 } });
        await log.append({ type: 'attempt/finished', nodeId: 'close', payload: { attempt: 1, token: 1, worker: 'host-b/2/bb', outcome: 'succeeded', answer: 'closed', filesChanged: ['src/f.txt'], patch } });
        const run = await getRun(store.db, created.id);
        const clone = await new CloneWorkspace(clonePath, base).open();
        const provider = createScriptedProvider({ script: { agents: { 'node:check': [{ text: 'closed' }] } } });
        const workspace: RunWorkspace = { runtime: { workspace: clonePath, tools: new FakeTools({}), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => [] }, files: clone.files, clone };
        const context = { db: store.db, queue, worker: 'host-a/1/aa', claimTtlMs: 60_000, signal: new AbortController().signal, workspaceFor: async () => workspace };
        const readBeside = refreshRunFold(context, run);
        await readBeside;
        await log.appendMany([
          { type: 'node/succeeded', nodeId: 'close', payload: { result: 'closed', filesChanged: ['src/f.txt'] } },
          { type: 'node/started', nodeId: 'check', payload: { attempt: 1 } },
        ]);
        const claims = new JobClaims({ ...context, prefetch: () => readBeside });
        claims.seeRun(run);

        const outcome = await executeNodeJob({ runId: run.id, nodeId: 'check', attempt: 1, dispatchKey: `${run.id}:check:1:0:1` }, { ...context, claims });

        expect(outcome).toBe('committed');
        expect(readFileSync(join(clonePath, 'src/f.txt'), 'utf8')).toBe('omega\nclosed\n');
      } finally {
        folder.cleanup();
      }
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
