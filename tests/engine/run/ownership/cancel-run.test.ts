import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunNotRunningError, cancelRun, claimRun, createRun, endRun, getRun, readEvents, runLog, type Store } from '../../../../engine/index.js';
import { setRunStatus } from '../../../../engine/run/storage/plan-store.js';
import { openTempStore } from '../../../helpers/temp-store.js';

/** A pid that no process of this host has (the kernel's pid_max is below 2^22). */
const GONE_PID = 4_194_304 + 17;

/** `dagent cancel`'s protocol: request in the log, signal on this host, wait, or record it when nobody runs the run. */
describe('cancelRun', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await openTempStore()));
  afterEach(async () => cleanup());

  async function runningRun(): Promise<string> {
    const run = await createRun(store.db, { task: 'cancel me', workspace: '/repo', mode: 'plan' });
    await setRunStatus(store.db, run.id, 'running');
    return run.id;
  }

  it('refuses a run that is neither planning nor running, and says what it is', async () => {
    const run = await createRun(store.db, { task: 'idle', workspace: '/repo', mode: 'plan' });
    await setRunStatus(store.db, run.id, 'awaiting_approval');
    await expect(cancelRun(store.db, run.id, { by: 'test', waitMs: 0 })).rejects.toBeInstanceOf(RunNotRunningError);
    expect((await readEvents(store.db, run.id, { types: ['run/cancel-requested'] })).length).toBe(0);
  });

  it('records the cancellation itself when the process that ran the run is gone', async () => {
    const runId = await runningRun();
    await claimRun(store.db, runId, { pid: GONE_PID });

    const outcome = await cancelRun(store.db, runId, { by: 'test', waitMs: 1_000 });

    expect(outcome).toEqual({ runId, from: 'running', kind: 'recorded' });
    expect((await getRun(store.db, runId)).status).toBe('cancelled');
    const types = (await readEvents(store.db, runId)).map((event) => event.type);
    expect(types.slice(-2)).toEqual(['run/cancel-requested', 'run/cancelled']);
  });

  it('closes a planning run whose planning process is gone, as cancelled', async () => {
    const run = await createRun(store.db, { task: 'plan me', workspace: '/repo', mode: 'plan' });
    await claimRun(store.db, run.id, { pid: GONE_PID });

    const outcome = await cancelRun(store.db, run.id, { by: 'test', waitMs: 1_000 });

    expect(outcome).toEqual({ runId: run.id, from: 'planning', kind: 'recorded' });
    expect((await getRun(store.db, run.id)).status).toBe('cancelled');
  });

  it('waits for a live holder elsewhere to stop the run, which it learns from the log', async () => {
    const runId = await runningRun();
    const holder = await claimRun(store.db, runId, { host: 'elsewhere' });
    // The holder on the other host: it hears the request appended to the log and ends the run.
    const requested = new Promise<void>((resolve) => {
      const stop = runLog(store.db, runId).onAppend((events) => {
        if (!events.some((event) => event.type === 'run/cancel-requested')) return;
        stop();
        resolve();
      });
    });
    const stopping = (async () => {
      await requested;
      await endRun(store.db, runId, { status: 'cancelled', reason: 'cancel requested by test' });
      await holder.release();
    })();

    const outcome = await cancelRun(store.db, runId, { by: 'test', waitMs: 5_000, pollMs: 10 });
    await stopping;

    expect(outcome).toMatchObject({ runId, kind: 'stopped', status: 'cancelled' });
  });

  it('signals a holder on this host, and says so when the run is still running at the end of the wait', async () => {
    const runId = await runningRun();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await claimRun(store.db, runId, { pid: child.pid! });

    const outcome = await cancelRun(store.db, runId, { by: 'test', waitMs: 100, pollMs: 10 });

    expect(outcome).toEqual({ runId, from: 'running', kind: 'still-running', pid: child.pid });
    expect(await exited).toBe('SIGINT');
    expect((await getRun(store.db, runId)).status).toBe('running');
  });
});
