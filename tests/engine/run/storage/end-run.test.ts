import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, RUN_VIEW_EVENT_TYPES, createRun, endRun, foldRunView, getRun, readEvents, type Store } from '../../../../engine/index.js';
import { IllegalRunTransitionError } from '../../../../engine/run/storage/run-status.js';
import { openTempStore } from '../../../helpers/temp-store.js';

let store: Store;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ store, cleanup } = await openTempStore()));
afterEach(async () => cleanup());

describe('endRun', () => {
  it('records the end and moves the run status together', async () => {
    const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'react', status: 'running' });
    await endRun(store.db, run.id, { status: 'failed', error: 'max steps: reached the limit of 40 model calls' });
    expect(await getRun(store.db, run.id)).toMatchObject({ status: 'failed', finishedAt: expect.any(String) });
    expect((await readEvents(store.db, run.id)).at(-1)).toMatchObject({ type: 'run/failed', payload: { error: 'max steps: reached the limit of 40 model calls' } });
  });

  it('refuses an illegal end and writes nothing', async () => {
    const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
    await expect(endRun(store.db, run.id, { status: 'succeeded' })).rejects.toBeInstanceOf(IllegalRunTransitionError);
    expect((await readEvents(store.db, run.id)).map((event) => event.type)).toEqual(['run/created']);
  });

  it('a cancelled run shows no node still running', async () => {
    const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan', status: 'running' });
    const log = new EventLog(store.db, run.id);
    await log.append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
    await endRun(store.db, run.id, { status: 'cancelled', reason: 'cancelled after its process had stopped' }, log);
    const view = foldRunView(run.id, await readEvents(store.db, run.id, { types: RUN_VIEW_EVENT_TYPES }));
    expect(view.status).toBe('cancelled');
    expect(view.nodes.get('a')?.status).toBe('cancelled');
  });
});
