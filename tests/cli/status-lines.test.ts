import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, RUN_VIEW_EVENT_TYPES, createRun, foldRunView, readEvents, rejectPlan, savePlan, type Plan, type Store } from '../../engine/index.js';
import { renderStatusText } from '../../cli/commands/status.js';
import { runCli } from '../helpers/cli-harness.js';
import { openTempStore, plannedRunIn } from '../helpers/temp-store.js';

/** What `status` says under its table: a rejected plan (which version, the reviewer's reason, how a new version is made), many merged nodes in one line. */

const PLAN: Plan = { goal: 'Look', rationale: 'One look.', nodes: [{ id: 'look', kind: 'read', title: 'Look', instructions: 'Look.', reads: [], writes: [], dependsOn: [] }] };

let store: Store;
let dir: string;
let path: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ store, dir, path, cleanup } = await openTempStore());
});
afterEach(async () => cleanup());

function plannedRun(): Promise<string> {
  return plannedRunIn(store, dir, PLAN);
}

describe('a rejected plan in status', () => {
  it('says which version was rejected and why, and how a new version is made', async () => {
    const runId = await plannedRun();
    await rejectPlan(store.db, runId, 'too broad: split the rename from the test changes');

    const view = foldRunView(runId, await readEvents(store.db, runId, { types: RUN_VIEW_EVENT_TYPES }));

    expect(view.rejection).toEqual({ version: 1, reason: 'too broad: split the rename from the test changes' });
    expect(renderStatusText(view).split('\n')).toContain(`plan v1 was rejected: too broad: split the rename from the test changes; \`dagent edit ${runId}\` or \`dagent import ${runId} FILE\` makes a new version to review`);
    await savePlan(store.db, runId, { plan: { ...PLAN, goal: 'Look closer' }, reason: 'edited' });
    expect(foldRunView(runId, await readEvents(store.db, runId, { types: RUN_VIEW_EVENT_TYPES })).rejection).toBeNull();
  });
});

describe('status of a run with many merged nodes', () => {
  it('names their commits in one line, not a line each under the table', async () => {
    const nodes = Array.from({ length: 12 }, (_, index) => ({ id: `edit-${index}`, kind: 'edit' as const, title: `Edit ${index}`, instructions: 'Edit.', reads: [], writes: [`src/f${index}.ts`], dependsOn: [] }));
    const run = await createRun(store.db, { task: 'edit twelve files', workspace: dir, mode: 'plan', status: 'running' });
    await savePlan(store.db, run.id, { plan: { goal: 'Edit twelve files', rationale: '', nodes }, reason: 'planned', status: 'approved' });
    const log = new EventLog(store.db, run.id);
    for (const [index, node] of nodes.entries()) {
      await log.appendMany([
        { type: 'node/started', nodeId: node.id, payload: { attempt: 1 } },
        { type: 'node/snapshotted', nodeId: node.id, payload: { attempt: 1, boundary: { kind: 'worktree', commit: 'a'.repeat(40) } } },
        { type: 'node/merged', nodeId: node.id, payload: { commit: `${index}`.padStart(40, 'c'), branch: `dagent/${run.id}`, files: [`src/f${index}.ts`], keptYours: [] } },
        { type: 'node/succeeded', nodeId: node.id, payload: { result: 'edited', filesChanged: [`src/f${index}.ts`] } },
      ]);
    }

    const status = await runCli(['--db', path, 'status', run.id], { cwd: dir, env: { HOME: dir, PATH: process.env.PATH } });

    const workspaceLines = status.stdout.split('\n').filter((line) => line.startsWith('workspace:'));
    expect(workspaceLines).toEqual([`workspace: 12 nodes merged, each as a commit on dagent/${run.id} (\`git log --oneline dagent/${run.id}\` lists them; \`dagent inspect ${run.id} --node ID\` names one)`]);
  });
});
