import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRun, runLog, type Store } from '../../../engine/index.js';
import { RunWatches } from '../../../engine/dispatch/run-watches.js';
import { contractStores } from '../../helpers/contract-stores.js';

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A worker's watch of a run it works on: it lets go of the run once the run has ended and its last node there is done. */
describe.each(contractStores().filter((backend) => backend.available))('run watches on $name', (backend) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let watches: RunWatches | undefined;
  beforeEach(async () => ({ store, cleanup } = await backend.open()));
  afterEach(async () => {
    await watches?.close();
    watches = undefined;
    await cleanup();
  });

  const watchesOf = (ended: string[]): RunWatches =>
    (watches = new RunWatches({ store: { db: store.db, dialect: store.dialect, url: store.url }, onRunEnded: async (runId) => void ended.push(runId) }));

  it('lets go of a run that ended just before the watch began, once its node there is done', async () => {
    // The run started and succeeded while this worker was still opening it (its follower not listening yet).
    const run = await createRun(store.db, { task: 'watched', workspace: '/repo', mode: 'plan' });
    const log = runLog(store.db, run.id);
    await log.append({ type: 'run/started', payload: { pid: process.pid, host: 'here', planVersion: 1 } });
    await log.append({ type: 'run/succeeded', payload: {} });
    const ended: string[] = [];

    const watch = await watchesOf(ended).enter(run.id);
    expect(ended).toEqual([]);
    watch.leave();

    await until('the run let go of', () => ended.length > 0);
    expect(ended).toEqual([run.id]);
    expect(watch.signal.aborted).toBe(false);
  });

  it('aborts the nodes of a run that failed before the watch began', async () => {
    const run = await createRun(store.db, { task: 'watched', workspace: '/repo', mode: 'plan' });
    const log = runLog(store.db, run.id);
    await log.append({ type: 'run/started', payload: { pid: process.pid, host: 'here', planVersion: 1 } });
    await log.append({ type: 'run/failed', payload: { error: 'a node failed' } });

    const watch = await watchesOf([]).enter(run.id);

    expect(watch.signal.aborted).toBe(true);
    expect(String((watch.signal.reason as Error).message)).toContain('ended (failed)');
    watch.leave();
  });

  it('keeps a run that was resumed after an earlier end, and lets go of it when it ends again', async () => {
    const run = await createRun(store.db, { task: 'watched', workspace: '/repo', mode: 'plan' });
    const log = runLog(store.db, run.id);
    await log.append({ type: 'run/started', payload: { pid: process.pid, host: 'here', planVersion: 1 } });
    await log.append({ type: 'run/failed', payload: { error: 'a node failed' } });
    await log.append({ type: 'run/started', payload: { pid: process.pid, host: 'here', planVersion: 1 } });
    const ended: string[] = [];

    const watch = await watchesOf(ended).enter(run.id);
    expect(watch.signal.aborted).toBe(false);
    await log.append({ type: 'run/succeeded', payload: {} });
    watch.leave();

    await until('the run let go of', () => ended.length > 0);
    expect(ended).toEqual([run.id]);
    expect(watch.signal.aborted).toBe(false);
  });
});
