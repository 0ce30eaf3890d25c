import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvePlan, createRun, endRun, rejectPlan, savePlan, type Plan, type Store } from '../../../../engine/index.js';
import { openTempStore, plannedRunIn } from '../../../helpers/temp-store.js';

/** Approving and rejecting a plan where that makes no sense says why and what to do, not how the status machine refused it. */

const PLAN: Plan = { goal: 'Look', rationale: 'One look.', nodes: [{ id: 'look', kind: 'read', title: 'Look', instructions: 'Look.', reads: [], writes: [], dependsOn: [] }] };

let store: Store;
let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ store, dir, cleanup } = await openTempStore());
});
afterEach(async () => cleanup());

function plannedRun(): Promise<string> {
  return plannedRunIn(store, dir, PLAN);
}

describe('approve and reject', () => {
  it('a rejected plan: rejecting it again says it is, approving it says how to make a new version', async () => {
    const runId = await plannedRun();
    await rejectPlan(store.db, runId, 'too broad');

    await expect(rejectPlan(store.db, runId)).rejects.toThrow(`plan v1 of run ${runId} is already rejected`);
    await expect(approvePlan(store.db, runId)).rejects.toThrow(`plan v1 of run ${runId} was rejected: make a new version with \`dagent edit ${runId}\``);
  });

  it('a run that ran its plan has nothing under review to reject', async () => {
    const runId = (await createRun(store.db, { task: 'look', workspace: dir, mode: 'plan', status: 'running' })).id;
    await savePlan(store.db, runId, { plan: PLAN, reason: 'planned', status: 'approved' });
    await endRun(store.db, runId, { status: 'succeeded' });

    await expect(rejectPlan(store.db, runId)).rejects.toThrow(`run ${runId} ran plan v1 and succeeded: there is no plan under review to reject (\`dagent revert ${runId}\` undoes its change)`);
  });
});
