import { sql, type KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, createRun, readEvents, type Store } from '../../../engine/index.js';
import { ClaimExpiredError, StaleClaimError } from '../../../engine/dispatch/claim-lost.js';
import { NodeClaim, allClaimsFence, claimNode, claimNodes, readNodeClaim } from '../../../engine/dispatch/node-claim.js';
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

    /** Every claim runs out now, without waiting for the clock. */
    async function expireClaims(): Promise<void> {
      await store.db.updateTable('node_claims').set({ expires_at: new Date(0).toISOString() }).execute();
    }

    /** Resolves once another session of the server waits on a row lock (the takeover, held off by the fence). */
    async function aSessionWaitsOnALock(): Promise<void> {
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setImmediate(resolve))) {
        const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity where wait_event_type = 'Lock'`.execute(store.db);
        if (rows[0]!.waiting > 0) return;
      }
      throw new Error('no session ever waited on the fence');
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

    it('several nodes claimed at once: the free and the expired are taken, a live one is left to its holder', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      await claimed(run.id, 'host-b/2/bb');
      expect(await claimNode(store.db, run.id, 'edit-b', { worker: 'host-b/2/bb', ttlMs: 1 })).toBeInstanceOf(NodeClaim);
      await store.db.updateTable('node_claims').set({ expires_at: new Date(0).toISOString() }).where('node_id', '=', 'edit-b').execute();

      const claims = await claimNodes(store.db, run.id, ['edit-c', 'edit-a', 'edit-b'], { worker: 'host-a/1/aa', ttlMs: 60_000 });

      expect(claims.get('edit-a')).toMatchObject({ worker: 'host-b/2/bb', alive: true });
      expect([claims.get('edit-b'), claims.get('edit-c')].map((claim) => (claim instanceof NodeClaim ? claim.token : undefined))).toEqual([2, 1]);
      expect(await readNodeClaim(store.db, run.id, 'edit-b')).toMatchObject({ worker: 'host-a/1/aa', token: 2 });
    });

    it('an append fenced by several claims stores nothing unless every one is current', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      const both = await claimNodes(store.db, run.id, ['edit-a', 'edit-b'], { worker: 'host-a/1/aa', ttlMs: 60_000 });
      const [a, b] = [both.get('edit-a'), both.get('edit-b')] as NodeClaim[];
      const message = (nodeId: string) => ({ type: 'user/message' as const, nodeId, payload: { content: `to ${nodeId}`, source: 'instruction' as const } });

      await log.appendMany([message('edit-a'), message('edit-b')], { fence: allClaimsFence([a!, b!]) });
      await b!.release();
      await expect(log.appendMany([message('edit-a'), message('edit-b')], { fence: allClaimsFence([a!, b!]) })).rejects.toBeInstanceOf(StaleClaimError);

      expect((await readEvents(store.db, run.id, { types: ['user/message'] })).map((event) => event.nodeId)).toEqual(['edit-a', 'edit-b']);
    });

    it('a commit with a stale token is refused and leaves no event; the current holder commits', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      // Still held by its own clock: what refuses it is the store's token.
      const slow = await claimed(run.id, 'host-a/1/aa');
      await expireClaims();
      const current = await claimed(run.id, 'host-b/2/bb');
      const commit = (claim: NodeClaim) =>
        log.append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: claim.token, worker: 'w', outcome: 'succeeded', answer: 'done' } }, { fence: claim.appendFence() });

      await expect(commit(slow)).rejects.toBeInstanceOf(StaleClaimError);
      expect(await readEvents(store.db, run.id, { types: ['attempt/finished'] })).toHaveLength(0);
      await commit(current);
      const committed = await readEvents(store.db, run.id, { types: ['attempt/finished'] });
      expect(committed.map((event) => (event.payload as { token: number }).token)).toEqual([current.token]);
      expect(await slow.renew()).toBe(false);
    });

    it("a node's outcome under its outcome fence leaves its claim released (on PostgreSQL by the statement that stores it); a stale one releases nothing", async () => {
      const updates: string[] = [];
      const counting: KyselyPlugin = {
        transformQuery: ({ node }) => {
          if (node.kind === 'UpdateQueryNode') updates.push('update');
          return node;
        },
        transformResult: async ({ result }) => result,
      };
      const db = store.db.withPlugin(counting);
      const run = await createRun(db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(db, run.id);
      const first = await claimNode(db, run.id, 'edit-a', { worker: 'host-a/1/aa', ttlMs: 60_000 });
      await expireClaims();
      const current = await claimNode(db, run.id, 'edit-a', { worker: 'host-b/2/bb', ttlMs: 60_000 });
      const [slow, holder] = [first, current] as NodeClaim[];
      const outcome = (claim: NodeClaim) =>
        log.append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: claim.token, worker: 'w', outcome: 'succeeded', answer: 'done' } }, { fence: claim.outcomeFence() });

      await expect(outcome(slow!)).rejects.toBeInstanceOf(StaleClaimError);
      expect(await readNodeClaim(db, run.id, 'edit-a')).toMatchObject({ worker: 'host-b/2/bb', alive: true });
      updates.length = 0;
      await outcome(holder!);
      await holder!.release();

      expect(await readNodeClaim(db, run.id, 'edit-a')).toMatchObject({ worker: 'host-b/2/bb', alive: false });
      expect(updates).toEqual(backend.name === 'postgres' ? [] : ['update']);
      expect(await holder!.renew()).toBe(false);
      expect(await readEvents(db, run.id, { types: ['attempt/finished'] })).toHaveLength(1);
    });

    it('a released claim refuses later commits too', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const claim = await claimed(run.id, 'host-a/1/aa');
      await claim.release();
      await expect(store.db.transaction().execute((transaction) => claim.assertCurrent(transaction))).rejects.toBeInstanceOf(StaleClaimError);
      await expect(new EventLog(store.db, run.id).withFence(claim.appendFence()).appendMany([{ type: 'user/message', nodeId: 'edit-a', payload: { content: 'after the release', source: 'instruction' } }, { type: 'user/message', nodeId: 'edit-a', payload: { content: 'and more', source: 'instruction' } }])).rejects.toBeInstanceOf(StaleClaimError);
      expect(await readEvents(store.db, run.id, { types: ['user/message'] })).toHaveLength(0);
    });

    it('workers appending to one run at once, under their claims, get gap-free seqs in one order', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const claims = await Promise.all(['edit-a', 'edit-b', 'edit-c', 'edit-d'].map(async (nodeId, index) => {
        const claim = await claimNode(store.db, run.id, nodeId, { worker: `host/${index}/aa`, ttlMs: 60_000 });
        if (!(claim instanceof NodeClaim)) throw new Error('expected the claim');
        return claim;
      }));
      const logs = claims.map((claim) => new EventLog(store.db, run.id).withFence(claim.appendFence()));
      await Promise.all(logs.flatMap((log, index) => Array.from({ length: 10 }, (_, turn) => log.appendMany(Array.from({ length: 1 + (turn % 3) }, () => ({ type: 'user/message' as const, nodeId: claims[index]!.nodeId, payload: { content: `turn ${turn}`, source: 'instruction' as const } }))))));
      const events = await readEvents(store.db, run.id);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: events.length }, (_, index) => index + 1));
      expect(events.filter((event) => event.type === 'user/message')).toHaveLength(4 * 19);
    });

    it.skipIf(backend.name !== 'postgres')("one worker's nodes appending at once under their own claims share statements, and a node whose claim was lost fails alone", async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      let inserts = 0;
      const counting: KyselyPlugin = { transformQuery: ({ node }) => ((inserts += node.kind === 'RawNode' ? 1 : 0), node), transformResult: async ({ result }) => result };
      const log = new EventLog(store.db.withPlugin(counting), run.id);
      const nodes = ['edit-a', 'edit-b', 'edit-c', 'edit-d', 'edit-e', 'edit-f'];
      const claims = await claimNodes(store.db, run.id, nodes, { worker: 'host-a/1/aa', ttlMs: 60_000 });
      const held = nodes.map((nodeId) => claims.get(nodeId) as NodeClaim);
      const lost = held[2]!;
      await lost.release();
      const message = (nodeId: string, turn: number) => ({ type: 'user/message' as const, nodeId, payload: { content: `${nodeId} turn ${turn}`, source: 'instruction' as const } });

      const appended = await Promise.allSettled(held.flatMap((claim) => [1, 2, 3].map((turn) => log.withFence(claim.appendFence()).append(message(claim.nodeId, turn)))));

      const refused = appended.flatMap((outcome, index) => (outcome.status === 'rejected' ? [{ index, error: outcome.reason as unknown }] : []));
      expect(refused.map(({ index }) => nodes[Math.floor(index / 3)])).toEqual(['edit-c', 'edit-c', 'edit-c']);
      for (const { error } of refused) expect(error).toBeInstanceOf(StaleClaimError);
      const events = await readEvents(store.db, run.id, { types: ['user/message'] });
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 15 }, (_, index) => events[0]!.seq + index));
      for (const nodeId of nodes.filter((id) => id !== 'edit-c')) expect(events.filter((event) => event.nodeId === nodeId).map((event) => (event.payload as { content: string }).content)).toEqual([1, 2, 3].map((turn) => `${nodeId} turn ${turn}`));
      inserts = 0;
      await Promise.all(held.filter((claim) => claim !== lost).map((claim) => log.withFence(claim.appendFence()).append(message(claim.nodeId, 4))));
      // The first alone; the four made while it was in flight together.
      expect(inserts).toBe(2);
    });

    it("a node's session events and file writes go through its claim: refused once another worker holds the node", async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      const stale = await claimed(run.id, 'host-a/1/aa');
      await expireClaims();
      const current = await claimed(run.id, 'host-b/2/bb');
      const staleLog = log.withFence(stale.appendFence());
      const writes: string[] = [];

      await expect(staleLog.append({ type: 'user/message', nodeId: 'edit-a', payload: { content: 'still here', source: 'instruction' } })).rejects.toBeInstanceOf(StaleClaimError);
      await expect(stale.fence(async () => writes.push('stale'))).rejects.toBeInstanceOf(StaleClaimError);
      await log.withFence(current.appendFence()).append({ type: 'user/message', nodeId: 'edit-a', payload: { content: 'the current holder', source: 'instruction' } });
      await current.fence(async () => writes.push('current'));

      expect((await readEvents(store.db, run.id, { types: ['user/message'] })).map((event) => event.payload.content)).toEqual(['the current holder']);
      expect(writes).toEqual(['current']);
    });

    it('a claim run out by its own clock writes nothing more, though the store still has it and nobody took it', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      const stalled = await claimed(run.id, 'host-a/1/aa', 40);
      await new Promise((resolve) => setTimeout(resolve, 60));
      const writes: string[] = [];

      await expect(log.withFence(stalled.appendFence()).append({ type: 'user/message', nodeId: 'edit-a', payload: { content: 'after my time', source: 'instruction' } })).rejects.toBeInstanceOf(ClaimExpiredError);
      await expect(log.append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: stalled.token, worker: 'w', outcome: 'failed', error: 'aborted' } }, { fence: stalled.outcomeFence() })).rejects.toBeInstanceOf(ClaimExpiredError);
      await expect(stalled.fence(async () => writes.push('stalled'))).rejects.toBeInstanceOf(ClaimExpiredError);
      expect(stalled.remainingMs()).toBe(0);

      expect(await readEvents(store.db, run.id, { types: ['user/message', 'attempt/finished'] })).toEqual([]);
      expect(writes).toEqual([]);
    });

    it.skipIf(backend.name !== 'postgres')("a worker checking its claim waits for a takeover being written, and then finds it stale", async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const holder = await claimed(run.id, 'host-a/1/aa');
      await expect(holder.ensureCurrent()).resolves.toBeUndefined();
      let commitTakeover!: () => void;
      const held = new Promise<void>((resolve) => (commitTakeover = resolve));
      let written!: () => void;
      const takeoverWritten = new Promise<void>((resolve) => (written = resolve));
      // Another worker's takeover, written but not yet committed: the row is its until it commits.
      const takeover = store.db.transaction().execute(async (transaction) => {
        await transaction.updateTable('node_claims').set({ token: holder.token + 1, worker: 'host-b/2/bb' }).where('run_id', '=', run.id).where('node_id', '=', 'edit-a').execute();
        written();
        await held;
      });
      await takeoverWritten;

      const check = holder.ensureCurrent().then(() => 'current', (error: unknown) => error);
      await aSessionWaitsOnALock();
      commitTakeover();
      await takeover;

      expect(await check).toBeInstanceOf(StaleClaimError);
    });

    it.skipIf(backend.name !== 'postgres')('a write under the fence holds off a worker taking the node over until it is done', async () => {
      const run = await createRun(store.db, { task: 'fencing', workspace: '/repo', mode: 'plan' });
      const holder = await claimed(run.id, 'host-a/1/aa', 300);
      const order: string[] = [];
      let writing!: () => void;
      const started = new Promise<void>((resolve) => (writing = resolve));
      let finish!: () => void;
      const finishing = new Promise<void>((resolve) => (finish = resolve));
      const write = holder.fence(async () => {
        writing();
        await finishing;
        order.push('write done');
      });
      await started;
      // The next worker's claim waits for the write, also once the claim has expired meanwhile.
      const takeover = claimed(run.id, 'host-b/2/bb').then((claim) => order.push(`claimed ${claim.token}`));
      // The claim (300 ms) runs out on the server's clock while the write holds the takeover off.
      await aSessionWaitsOnALock();
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(order).toEqual([]);
      finish();
      await Promise.all([write, takeover]);
      expect(order).toEqual(['write done', `claimed ${holder.token + 1}`]);
    });
  });
}
