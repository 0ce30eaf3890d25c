import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRun, runLog, type Store } from '../../../engine/index.js';
import { RunWatches } from '../../../engine/dispatch/run-watches.js';
import { contractStores } from '../../helpers/contract-stores.js';
import { until } from '../../helpers/wait-until.js';

const STARTED = { type: 'run/started', payload: { pid: process.pid, host: 'here', planVersion: 1 } } as const;

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

  const watchesOf = (ended: string[], options: { db?: Store['db']; reports?: string[] } = {}): RunWatches =>
    (watches = new RunWatches({
      store: { db: options.db ?? store.db, dialect: store.dialect, url: store.url },
      onRunEnded: async (runId) => void ended.push(runId),
      report: (line) => options.reports?.push(line),
      followRetryMs: 50,
    }));

  /** A run of the store that has started, and its log. */
  const startedRun = async () => {
    const run = await createRun(store.db, { task: 'watched', workspace: '/repo', mode: 'plan' });
    const log = runLog(store.db, run.id);
    await log.append(STARTED);
    return { run, log };
  };

  it('lets go of a run that ended just before the watch began, once its node there is done', async () => {
    // The run started and succeeded while this worker was still opening it (its follower not listening yet).
    const { run, log } = await startedRun();
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
    const { run, log } = await startedRun();
    await log.append({ type: 'run/failed', payload: { error: 'a node failed' } });

    const watch = await watchesOf([]).enter(run.id);

    expect(watch.signal.aborted).toBe(true);
    expect(String((watch.signal.reason as Error).message)).toContain('ended (failed)');
    watch.leave();
  });

  it('keeps a run that was resumed after an earlier end, and lets go of it when it ends again', async () => {
    const { run, log } = await startedRun();
    await log.append({ type: 'run/failed', payload: { error: 'a node failed' } });
    await log.append(STARTED);
    const ended: string[] = [];

    const watch = await watchesOf(ended).enter(run.id);
    expect(watch.signal.aborted).toBe(false);
    await log.append({ type: 'run/succeeded', payload: {} });
    watch.leave();

    await until('the run let go of', () => ended.length > 0);
    expect(ended).toEqual([run.id]);
    expect(watch.signal.aborted).toBe(false);
  });

  it('follows a run again when its log could not be read at first, and lets go of it when it ends', async () => {
    const { run, log } = await startedRun();
    // The store fails the watch's first read (a dropped connection, say), then answers again.
    let failures = 1;
    const flaky = new Proxy(store.db, {
      get(target, property, receiver) {
        if (property === 'selectFrom' && failures > 0) {
          failures -= 1;
          return () => {
            throw new Error('connection reset');
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const ended: string[] = [];
    const reports: string[] = [];

    const watch = await watchesOf(ended, { db: flaky, reports }).enter(run.id);
    await until('the log followed again', () => reports.some((line) => line.includes('followed again')));
    await log.append({ type: 'run/succeeded', payload: {} });
    watch.leave();

    await until('the run let go of', () => ended.length > 0);
    expect(ended).toEqual([run.id]);
    expect(reports[0]).toContain('its log cannot be followed (connection reset); trying again');
  });
});
