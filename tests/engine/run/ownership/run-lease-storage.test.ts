import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { RunClaimedError, claimRun, createRun, deadRunOwner, getRun, openDatabase, processStartTime, readEvents, runLog, runOwner, waitForRun, type Store } from '../../../../engine/index.js';
import { readLeaseHolder } from '../../../../engine/run/ownership/lease-holder.js';
import { contractStores } from '../../../helpers/contract-stores.js';
import { BUILT_ENGINE } from '../../../helpers/crash-process.js';

/** A pid that no process of this host has (the kernel's pid_max is below 2^22). */
const GONE_PID = 4_194_304 + 17;

/** A process of its own creates a plan-mode run and exits without claiming it (as one killed in between would). */
function createRunInChild(url: string, task: string): { id: string; pid: number } {
  const script = `const { openDatabase, createRun } = await import(process.env.ENGINE); const store = await openDatabase(process.env.DB); const run = await createRun(store.db, { task: process.env.TASK, workspace: '/repo', mode: 'plan' }); await store.close(); process.stdout.write(JSON.stringify({ id: run.id, pid: process.pid }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ENGINE: BUILT_ENGINE, DB: url, TASK: task }, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`the creating process failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as { id: string; pid: number };
}

/** One runner per run, on every backend: claims race through separate connections, as separate processes would. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`run leases on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    const others: Store[] = [];
    beforeEach(async () => ({ store, cleanup } = await backend.open()));
    afterEach(async () => {
      for (const other of others.splice(0)) await other.close();
      await cleanup();
    });

    /** `count` more stores on the same database: each its own connection (pool), like another process. */
    async function otherProcesses(count: number): Promise<Store[]> {
      const opened = await Promise.all(Array.from({ length: count }, () => openDatabase(store.url)));
      others.push(...opened);
      return opened;
    }

    // SQLite connections of one thread cannot wait for each other (better-sqlite3 is synchronous):
    // its race is two real processes, in one-runner-per-run.test.ts.
    it.skipIf(backend.name === 'sqlite')('of eight claims made at the same moment, exactly one wins and the others name its pid', async () => {
      const run = await createRun(store.db, { task: 'race', workspace: '/repo', mode: 'plan' });
      const stores = await otherProcesses(8);
      const outcomes = await Promise.allSettled(stores.map((other, index) => claimRun(other.db, run.id, { pid: process.pid, host: `host-${index}` })));
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(refused).toHaveLength(7);
      for (const error of refused) {
        expect(error).toBeInstanceOf(RunClaimedError);
        expect((error as RunClaimedError).message).toContain(`pid ${process.pid}`);
      }
    });

    it('gives each claim a higher fencing token, and a released run is claimed again at once', async () => {
      const run = await createRun(store.db, { task: 'tokens', workspace: '/repo', mode: 'plan' });
      const first = await claimRun(store.db, run.id);
      await first.release();
      const second = await claimRun(store.db, run.id);
      expect(second.token).toBeGreaterThan(first.token);
      expect(await first.isCurrent()).toBe(false);
      expect(await second.isCurrent()).toBe(true);
      expect(await first.renew()).toBe(false);
      await second.release();
    });

    it('takes over a lease whose pid is gone from this host, and one that expired elsewhere', async () => {
      const run = await createRun(store.db, { task: 'dead owner', workspace: '/repo', mode: 'plan' });
      const dead = await claimRun(store.db, run.id, { pid: GONE_PID });
      expect(await runOwner(store.db, run.id)).toMatchObject({ pid: GONE_PID, alive: false });
      const resumed = await claimRun(store.db, run.id);
      expect(resumed.token).toBe(dead.token + 1);
      expect(await dead.renew()).toBe(false);
      await resumed.release();

      const past = new Date(Date.now() - 60_000);
      const remote = await claimRun(store.db, run.id, { host: 'elsewhere', ttlMs: 1_000, now: () => past });
      expect((await readLeaseHolder(store.db, run.id))?.alive).toBe(false);
      const next = await claimRun(store.db, run.id);
      expect(next.token).toBe(remote.token + 1);
      await next.release();
    });

    it('names the process that created a run: one that died before taking the lease leaves its planning run seen gone', async () => {
      const { id, pid } = await createRunInChild(store.url, 'killed before its claim');
      const run = await getRun(store.db, id);

      expect(run.status).toBe('planning');
      expect(await runOwner(store.db, id)).toMatchObject({ pid, alive: false });
      expect(await deadRunOwner(store.db, run)).toMatchObject({ pid, alive: false });
      const live = await createRun(store.db, { task: 'still planning here', workspace: '/repo', mode: 'plan' });
      expect((await readEvents(store.db, live.id))[0]).toMatchObject({ type: 'run/created', payload: { pid: process.pid, host: hostname() } });
    });

    it.skipIf(process.platform !== 'linux')('takes the pid of a run that another process was given since (its start time differs) as gone', async () => {
      const run = await createRun(store.db, { task: 'pid given again', workspace: '/repo', mode: 'plan' });
      const other = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        const named = (startTime: string) => runLog(store.db, run.id).append({ type: 'run/created', payload: { task: run.task, workspace: '/repo', mode: 'plan', pid: other.pid!, host: hostname(), startTime } });

        await named('1');
        expect(await runOwner(store.db, run.id)).toMatchObject({ pid: other.pid, alive: false });
        await named(processStartTime(other.pid!)!);
        expect(await runOwner(store.db, run.id)).toMatchObject({ pid: other.pid, alive: true });
      } finally {
        other.kill('SIGKILL');
      }
    });

    it('a renewed lease on another host stays claimed; a holder that lost it is told through `lost`', async () => {
      const run = await createRun(store.db, { task: 'renew', workspace: '/repo', mode: 'plan' });
      const [other] = await otherProcesses(1);
      // Each side's clock is stated, not waited for: the remote host claims at t0 for 300 ms and
      // renews at t0 + 200 ms; a claim here at t0 + 400 ms (past the first expiry) is refused.
      const t0 = Date.now();
      let remoteNow = t0;
      const at = (ms: number) => () => new Date(t0 + ms);
      const remote = await claimRun(other!.db, run.id, { host: 'elsewhere', ttlMs: 300, now: () => new Date(remoteNow) });
      remoteNow = t0 + 200;
      expect(await remote.renew()).toBe(true);
      await expect(claimRun(store.db, run.id, { now: at(400) })).rejects.toBeInstanceOf(RunClaimedError);
      // Its renewals stop arriving: past the renewed expiry (t0 + 500 ms) the next claim takes the
      // run over, and the remote's keep-alive, renewing from then on, learns it through `lost`.
      const taken = await claimRun(store.db, run.id, { now: at(600) });
      remote.keepAlive();
      await new Promise<void>((resolve) => remote.lost.addEventListener('abort', () => resolve(), { once: true }));
      expect(remote.lost.reason).toBeInstanceOf(Error);
      await remote.release();
      expect(await taken.isCurrent()).toBe(true);
      await taken.release();
    });

    it('--wait: a waiter gets the run as soon as the holder releases it', async () => {
      const run = await createRun(store.db, { task: 'wait', workspace: '/repo', mode: 'plan' });
      const [other] = await otherProcesses(1);
      const holder = await claimRun(other!.db, run.id);
      const waited: number[] = [];
      let toldWaiting!: () => void;
      const told = new Promise<void>((resolve) => (toldWaiting = resolve));
      const onWaiting = (seen: { pid: number }): void => {
        waited.push(seen.pid);
        toldWaiting();
      };
      const waiting = waitForRun(store.db, run.id, { signal: new AbortController().signal, pollMs: 20, onWaiting });
      // Released once the waiter has found the run held (and said so), not after a guessed delay.
      await told;
      await holder.release();
      const lease = await waiting;
      expect(waited).toEqual([process.pid]);
      expect(lease.token).toBe(holder.token + 1);
      await lease.release();
    });
  });
}
