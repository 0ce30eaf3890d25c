import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_VIEW_EVENT_TYPES, createRun, foldRunView, readEvents, rejectPlan, savePlan, type Plan, type Store } from '../../engine/index.js';
import { renderStatusText } from '../../cli/commands/status.js';
import { openTempStore } from '../helpers/temp-store.js';

/** `status` of a run whose plan was rejected: which version, the reviewer's reason, how a new version is made. */

const PLAN: Plan = { goal: 'Look', rationale: 'One look.', nodes: [{ id: 'look', kind: 'read', title: 'Look', instructions: 'Look.', reads: [], writes: [], dependsOn: [] }] };

let store: Store;
let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ store, dir, cleanup } = await openTempStore());
});
afterEach(async () => cleanup());

async function plannedRun(): Promise<string> {
  const run = await createRun(store.db, { task: 'look', workspace: dir, mode: 'plan' });
  await savePlan(store.db, run.id, { plan: PLAN, reason: 'planned' });
  return run.id;
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
