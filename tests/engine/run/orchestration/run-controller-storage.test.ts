import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvePlan, createRun, executeRun, readEvents, savePlan, type Approver, type NodeRuntime, type Plan, type SessionEvent, type Store } from '../../../../engine/index.js';
import { createScriptedProvider } from '../../../../engine/model/scripted-provider.js';
import { contractStores } from '../../../helpers/contract-stores.js';
import { FakeNodeFiles } from '../../../helpers/fake-node-files.js';
import { FakeTools, toolOk } from '../../../helpers/fake-tools.js';

const approver: Approver = { interactive: false, ask: async () => ({ decision: 'no' }) };

/** Wide enough that starts, successes and node work interleave: two layers of five, then a test. */
const WIDE: Plan = {
  goal: 'Rename Shape.area() to Shape.getArea() everywhere',
  rationale: 'Reads first, then one edit per file, then the tests.',
  nodes: [
    ...Array.from({ length: 5 }, (_, index) => ({ id: `read-${index}`, kind: 'read' as const, title: `Read ${index}`, instructions: '', reads: [`src/s${index}.ts`], writes: [], dependsOn: [] })),
    ...Array.from({ length: 5 }, (_, index) => ({
      id: `edit-${index}`, kind: 'edit' as const, title: `Edit ${index}`, instructions: '', reads: [`src/s${index}.ts`], writes: [`src/s${index}.ts`], dependsOn: [`read-${index}`, `read-${(index + 1) % 5}`],
    })),
    { id: 'test', kind: 'command', title: 'Run the tests', instructions: '', command: 'npm test', reads: [], writes: [], dependsOn: ['edit-0', 'edit-1', 'edit-2', 'edit-3', 'edit-4'] },
  ],
};

/** The log a plan run leaves must read in causal order on every backend, PostgreSQL's pool included. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`executeRun on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await backend.open()));
    afterEach(async () => cleanup());

    it('stores each node start before anything the node does, and each success before a dependent starts', async () => {
      const run = await createRun(store.db, { task: WIDE.goal, workspace: '/repo', mode: 'plan' });
      await savePlan(store.db, run.id, { plan: WIDE, reason: 'planned' });
      await approvePlan(store.db, run.id);
      const agents = Object.fromEntries(WIDE.nodes.filter((node) => node.kind !== 'command').map((node) => [`node:${node.id}`, [{ text: `${node.id} done`, latencyMs: 3 }]]));
      const provider = createScriptedProvider({ script: { agents } });
      const runtime: NodeRuntime = { workspace: '/repo', tools: new FakeTools({ run_command: () => toolOk('exit code 0\n12 tests passed') }), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => undefined };

      const result = await executeRun({ db: store.db, runId: run.id, runtime, files: new FakeNodeFiles(), signal: new AbortController().signal, settings: { concurrency: 5 } });

      expect(result.status).toBe('succeeded');
      const events = await readEvents(store.db, run.id);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      const seqOf = (nodeId: string, type: string): number => events.find((event) => event.nodeId === nodeId && event.type === type)!.seq;
      const firstOwnEvent = (nodeId: string): SessionEvent => events.find((event) => event.nodeId === nodeId)!;
      for (const node of WIDE.nodes) {
        expect(events.filter((event) => event.nodeId === node.id && event.type === 'node/succeeded')).toHaveLength(1);
        expect(firstOwnEvent(node.id).type, `${node.id}: its first event`).toBe('node/started');
        expect(seqOf(node.id, 'node/started')).toBeLessThan(seqOf(node.id, 'node/snapshotted'));
        for (const dependency of node.dependsOn) expect(seqOf(dependency, 'node/succeeded'), `${dependency} before ${node.id}`).toBeLessThan(seqOf(node.id, 'node/started'));
      }
    });
  });
}
