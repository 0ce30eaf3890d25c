import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, approvePlan, currentPlan, getRun, prepareRerun, type Plan, type Store } from '../../../../engine/index.js';
import { openTempStore, plannedRunIn } from '../../../helpers/temp-store.js';

/** What `rerun --from` runs: only a plan someone approved, only a run that ran, and again after a rerun that stopped before its run began. */

const PLAN: Plan = {
  goal: 'Look twice',
  rationale: 'Two looks.',
  nodes: [
    { id: 'first', kind: 'read', title: 'Look', instructions: 'Look.', reads: [], writes: [], dependsOn: [] },
    { id: 'second', kind: 'read', title: 'Look again', instructions: 'Look again.', reads: [], writes: [], dependsOn: ['first'] },
  ],
};

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

/** The first node ran and succeeded (as a run that was then stopped leaves it). */
async function firstNodeRan(runId: string): Promise<void> {
  const log = new EventLog(store.db, runId);
  await log.appendMany([
    { type: 'node/started', nodeId: 'first', payload: { attempt: 1 } },
    { type: 'node/succeeded', nodeId: 'first', payload: { result: 'seen', filesChanged: [] } },
  ]);
}

describe('rerun --from', () => {
  it('refuses a plan that awaits approval: a rerun never runs a version nobody approved', async () => {
    const runId = await plannedRun();
    await firstNodeRan(runId);

    await expect(prepareRerun(store.db, runId, { from: 'first', workspace: dir })).rejects.toThrow(
      `plan v1 of run ${runId} is awaiting approval: a rerun runs an approved plan again; review it with \`dagent show ${runId}\`, then \`dagent approve ${runId}\` and \`dagent run ${runId}\``,
    );
    expect((await currentPlan(store.db, runId)).status).toBe('awaiting_approval');
  });

  it('sends a run that has not run yet to `dagent run`', async () => {
    const runId = await plannedRun();
    await approvePlan(store.db, runId);

    await expect(prepareRerun(store.db, runId, { from: 'second', workspace: dir })).rejects.toThrow(`run ${runId} has not run yet: \`dagent run ${runId}\` runs it (every node, once)`);
  });

  it('goes on after a rerun that stopped before its run began (the run left approved, not run)', async () => {
    const runId = await plannedRun();
    await approvePlan(store.db, runId);
    await firstNodeRan(runId);
    await prepareRerun(store.db, runId, { from: 'second', workspace: dir });
    expect((await getRun(store.db, runId)).status).toBe('approved');

    const again = await prepareRerun(store.db, runId, { from: 'first', workspace: dir });

    expect(again).toMatchObject({ fromVersion: 2, version: 3, nodes: ['first', 'second'] });
    expect((await getRun(store.db, runId)).status).toBe('approved');
  });
});
