import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, createRun, readEvents, type Store } from '../../../engine/index.js';
import { NodeClaim, StaleClaimError, claimNode, readNodeClaim } from '../../../engine/dispatch/node-claim.js';
import { contractStores } from '../../helpers/contract-stores.js';

/** Fencing: a worker commits a node's outcome only while its claim's token is the node's current one. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`node claims on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await backend.open()));
    afterEach(async () => cleanup());

    async function claimed(runId: string, worker: string, ttlMs = 60_000): Promise<NodeClaim> {
      const claim = await claimNode(store.db, runId, 'edit-a', { worker, ttlMs });
      if (!(claim instanceof NodeClaim)) throw new Error(`expected ${worker} to get the claim, ${claim.worker} has it`);
      return claim;
    }

    it('a live claim is not taken; an expired one is, with the next token', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const first = await claimed(run.id, 'host-a/1/aa');
      const refused = await claimNode(store.db, run.id, 'edit-a', { worker: 'host-b/2/bb' });
      expect(refused).not.toBeInstanceOf(NodeClaim);
      expect(refused).toMatchObject({ worker: 'host-a/1/aa', token: first.token, alive: true });
      await store.db.updateTable('node_claims').set({ expires_at: new Date(0).toISOString() }).execute();
      const second = await claimed(run.id, 'host-b/2/bb');
      expect(second.token).toBe(first.token + 1);
      expect(await readNodeClaim(store.db, run.id, 'edit-a')).toMatchObject({ worker: 'host-b/2/bb', token: second.token });
    });

    it('a commit with a stale token is refused and leaves no event; the current holder commits', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      const slow = await claimed(run.id, 'host-a/1/aa', 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const current = await claimed(run.id, 'host-b/2/bb');
      const commit = (claim: NodeClaim) =>
        log.append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: claim.token, worker: 'w', outcome: 'succeeded', answer: 'done' } }, { effects: (transaction) => claim.assertCurrent(transaction) });

      await expect(commit(slow)).rejects.toBeInstanceOf(StaleClaimError);
      expect(await readEvents(store.db, run.id, { types: ['attempt/finished'] })).toHaveLength(0);
      await commit(current);
      const committed = await readEvents(store.db, run.id, { types: ['attempt/finished'] });
      expect(committed.map((event) => (event.payload as { token: number }).token)).toEqual([current.token]);
      expect(await slow.renew()).toBe(false);
    });

    it('a released claim refuses later commits too', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const claim = await claimed(run.id, 'host-a/1/aa');
      await claim.release();
      await expect(store.db.transaction().execute((transaction) => claim.assertCurrent(transaction))).rejects.toBeInstanceOf(StaleClaimError);
    });
  });
}
