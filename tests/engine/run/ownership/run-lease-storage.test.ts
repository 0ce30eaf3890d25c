import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunClaimedError, claimRun, createRun, openDatabase, runOwner, waitForRun, type Store } from '../../../../engine/index.js';
import { readLeaseHolder } from '../../../../engine/run/ownership/lease-holder.js';
import { contractStores } from '../../../helpers/contract-stores.js';

/** A pid that no process of this host has (the kernel's pid_max is below 2^22). */
const GONE_PID = 4_194_304 + 17;

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

    it('a renewed lease on another host stays claimed; a holder that lost it is told through `lost`', async () => {
      const run = await createRun(store.db, { task: 'renew', workspace: '/repo', mode: 'plan' });
      const [other] = await otherProcesses(1);
      // The remote host's clock: true at first; later it falls behind, as if its renewals stopped arriving.
      let remoteClock = (): Date => new Date();
      const remote = (await claimRun(other!.db, run.id, { host: 'elsewhere', ttlMs: 300, now: () => remoteClock() })).keepAlive();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await expect(claimRun(store.db, run.id)).rejects.toBeInstanceOf(RunClaimedError);
      // Cut the remote host off: whatever it renews from now on has already expired (a renewal
      // racing the forged expiry below cannot bring the lease back), so the next claim takes the run over.
      remoteClock = () => new Date(Date.now() - 60_000);
      await store.db.updateTable('run_leases').set({ expires_at: new Date(0).toISOString() }).where('run_id', '=', run.id).execute();
      const taken = await claimRun(store.db, run.id);
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
      const waiting = waitForRun(store.db, run.id, { signal: new AbortController().signal, pollMs: 20, onWaiting: (seen) => waited.push(seen.pid) });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await holder.release();
      const lease = await waiting;
      expect(waited).toEqual([process.pid]);
      expect(lease.token).toBe(holder.token + 1);
      await lease.release();
    });
  });
}
