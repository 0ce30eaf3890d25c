import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvePlan, createRun, executeRun, readEvents, savePlan, type Approver, type Plan, type Store } from '../../../../engine/index.js';
import type { HookRunner } from '../../../../engine/hooks/hook-runner.js';
import { createScriptedProvider } from '../../../../engine/model/scripted-provider.js';
import { runLog } from '../../../../engine/session/run-log.js';
import { FakeNodeFiles } from '../../../helpers/fake-node-files.js';
import { FakeTools, toolOk } from '../../../helpers/fake-tools.js';
import { openTempStore } from '../../../helpers/temp-store.js';

/**
 * A node's attempt begins with its marker (`node/snapshotted`, the boundary its files go back to);
 * the marker is stored with the node's instruction, one write where there were two, and before
 * anything can change the node's files: a tool (after the model's answer) or a hook's command.
 */
const PLAN: Plan = {
  goal: 'Document area()',
  rationale: '',
  nodes: [
    { id: 'read', kind: 'read', title: 'Read the shapes', instructions: 'Read them.', reads: ['src/a.ts'], writes: [], dependsOn: [] },
    { id: 'edit', kind: 'edit', title: 'Document A', instructions: 'Add a doc comment.', reads: ['src/a.ts'], writes: ['src/a.ts'], dependsOn: ['read'] },
  ],
};
const approver: Approver = { interactive: false, ask: async () => ({ decision: 'yes' }) };

let store: Store;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ store, cleanup } = await openTempStore()));
afterEach(async () => cleanup());

async function runPlan(hooksOf?: (runId: string) => HookRunner): Promise<{ runId: string; writes: string[][] }> {
  const run = await createRun(store.db, { task: PLAN.goal, workspace: '/repo', mode: 'plan' });
  const hooks = hooksOf?.(run.id);
  await savePlan(store.db, run.id, { plan: PLAN, reason: 'planned' });
  await approvePlan(store.db, run.id);
  const writes: string[][] = [];
  runLog(store.db, run.id).onAppend((events) => writes.push(events.map((event) => `${event.nodeId ?? '-'} ${event.type}`)));
  const provider = createScriptedProvider({
    script: { agents: { 'node:read': [{ text: 'a.ts exports area()' }], 'node:edit': [{ toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'src/a.ts', content: '/** Area. */' } }] }, { text: 'documented' }] } },
  });
  const tools = new FakeTools({ write_file: () => toolOk('written'), read_file: () => toolOk('export function area() {}') });
  const result = await executeRun({
    db: store.db,
    runId: run.id,
    runtime: { workspace: '/repo', tools, approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => undefined, ...(hooks === undefined ? {} : { hooks }) },
    files: new FakeNodeFiles(),
    signal: new AbortController().signal,
  });
  expect(result.status).toBe('succeeded');
  return { runId: run.id, writes };
}

describe("a node's opening", () => {
  it('stores each attempt\'s marker and its instruction (with the handoff) in one write', async () => {
    const { writes } = await runPlan();

    expect(writes).toContainEqual(['read node/snapshotted', 'read user/message']);
    expect(writes).toContainEqual(['edit node/snapshotted', 'edit user/message', 'edit user/message']);
    // No write holds a marker alone.
    expect(writes.filter((write) => write.length === 1 && write[0]!.endsWith('node/snapshotted'))).toEqual([]);
  });

  it("runs a NodeStart hook's command only once its node's marker is stored", async () => {
    const storedWhenHooked: string[] = [];
    await runPlan((runId) => ({
      matches: (event, subject) => event === 'NodeStart' && subject === 'edit',
      run: async (input) => {
        const markers = await readEvents(store.db, runId, { nodeId: input.nodeId ?? null, types: ['node/snapshotted'] });
        storedWhenHooked.push(`${input.nodeId}: ${markers.length} marker`);
        return { context: [] };
      },
    }));

    expect(storedWhenHooked).toEqual(['edit: 1 marker']);
  });
});
