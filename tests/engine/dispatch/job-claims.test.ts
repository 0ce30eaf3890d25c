import type { Kysely, KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../engine/db/database.js';
import { EventLog, createRun, readEvents, runLog, type Store } from '../../../engine/index.js';
import { JobClaims } from '../../../engine/dispatch/job-claims.js';
import type { JobQueue, NodeJob } from '../../../engine/dispatch/job-queue.js';
import { StaleClaimError } from '../../../engine/dispatch/claim-lost.js';
import { NodeClaim, claimNode, readNodeClaim } from '../../../engine/dispatch/node-claim.js';
import { contractStores } from '../../helpers/contract-stores.js';

/** A worker's jobs taken together are claimed together: one round of statements, every claim's guarantees per node. */

/**
 * The handle with the order in which its claim statements (PostgreSQL's claim round among them) and
 * its checks (their read of the run) were sent and came back, and how many statements it sent.
 */
function recordingOrder(db: Kysely<Database>): { db: Kysely<Database>; order: string[]; sent: () => number } {
  const order: string[] = [];
  const kinds = new Map<unknown, string>();
  let sent = 0;
  const kindOf = (node: unknown): string | undefined => {
    const text = JSON.stringify(node);
    const kind = (node as { kind: string }).kind;
    // PostgreSQL's claim round carries the same insert inside its one statement.
    if ((kind === 'InsertQueryNode' || kind === 'RawNode') && text.includes('"kind":"InsertQueryNode"') && text.includes('"name":"node_claims"')) return 'claim';
    if (kind === 'SelectQueryNode' && text.includes('"name":"runs"')) return 'check';
    return undefined;
  };
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      sent += 1;
      const kind = kindOf(node);
      if (kind !== undefined) {
        kinds.set(queryId, kind);
        order.push(`${kind} sent`);
      }
      return node;
    },
    transformResult: async ({ result, queryId }) => {
      const kind = kinds.get(queryId);
      if (kind !== undefined) order.push(`${kind} back`);
      return result;
    },
  };
  return { db: db.withPlugin(plugin), order, sent: () => sent };
}
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`jobs claimed in rounds on ${backend.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await backend.open()));
    afterEach(async () => cleanup());

    /** The queue's side: only the drop of leftover jobs is used; recorded are the nodes whose jobs it may drop (those it is told are held, when told). */
    function recordingQueue(): JobQueue & { dropLookUps: string[][] } {
      const dropLookUps: string[][] = [];
      return {
        dropLookUps,
        enqueueNodes: async () => undefined,
        lockedSince: async () => new Map(),
        dropLeftoverNodeJobs: async (_runId, kept, held) => {
          const holding = held === undefined ? undefined : await held;
          dropLookUps.push(kept.map((job) => job.nodeId).filter((nodeId) => holding === undefined || holding.has(nodeId)));
          return new Map();
        },
        close: async () => undefined,
      };
    }

    async function runningRun(started: readonly string[]): Promise<{ runId: string; log: EventLog }> {
      const run = await createRun(store.db, { task: 'claims', workspace: '/repo', mode: 'plan' });
      await store.db.updateTable('runs').set({ status: 'running' }).where('id', '=', run.id).execute();
      const log = new EventLog(store.db, run.id);
      await log.appendMany(started.map((nodeId) => ({ type: 'node/started', nodeId, payload: { attempt: 1 } })));
      return { runId: run.id, log };
    }

    const job = (runId: string, nodeId: string, attempt = 1): NodeJob => ({ runId, nodeId, attempt, dispatchKey: `${runId}:${nodeId}:${attempt}:0:1` });

    it('a stage taken at once: each current node claimed and its attempt/claimed stored together; the rest skipped, their claims let go', async () => {
      const { runId, log } = await runningRun(['read-a', 'read-b', 'read-c', 'held', 'old']);
      await log.append({ type: 'node/started', nodeId: 'old', payload: { attempt: 2 } });
      const other = await claimNode(store.db, runId, 'held', { worker: 'host-b/2/bb', ttlMs: 60_000 });
      expect(other).toBeInstanceOf(NodeClaim);
      const queue = recordingQueue();
      const claims = new JobClaims({ db: store.db, queue, worker: 'host-a/1/aa', claimTtlMs: 60_000 });

      const taken = await Promise.all([
        claims.take(job(runId, 'read-a'), '11'),
        claims.take(job(runId, 'read-b'), '12'),
        claims.take(job(runId, 'read-c'), '13'),
        claims.take(job(runId, 'held'), '14'),
        // A job of the node's first attempt, when its second has started: not current.
        claims.take(job(runId, 'old', 1), '15'),
      ]);

      expect(taken.map((claimed) => claimed?.claim.nodeId)).toEqual(['read-a', 'read-b', 'read-c', undefined, undefined]);
      const claimedEvents = await readEvents(store.db, runId, { types: ['attempt/claimed'] });
      expect(claimedEvents.map((event) => event.nodeId).sort()).toEqual(['read-a', 'read-b', 'read-c']);
      // Jobs handed over one after the other, as one fetch of the queue hands them, went in one round: one append.
      expect(claimedEvents.at(-1)!.seq - claimedEvents.at(0)!.seq).toBe(2);
      expect(new Set(claimedEvents.map((event) => event.createdAt)).size).toBe(1);
      expect(claimedEvents.map((event) => event.payload.token)).toEqual([1, 1, 1]);
      expect(await readNodeClaim(store.db, runId, 'held')).toMatchObject({ worker: 'host-b/2/bb', alive: true });
      expect(await readNodeClaim(store.db, runId, 'old')).toMatchObject({ worker: 'host-a/1/aa', alive: false });
      expect(queue.dropLookUps.map((nodes) => [...nodes].sort())).toEqual([['read-a', 'read-b', 'read-c']]);
      for (const claimed of taken) await claimed?.claim.release();
    });

    it("a node's first claim is checked beside it, in one round trip; a node claimed before is checked again after its claim", async () => {
      const { runId } = await runningRun(['first', 'again']);
      // Another worker held `again` and let it go (its node went back to the queue without an outcome).
      const earlier = await claimNode(store.db, runId, 'again', { worker: 'host-b/2/bb', ttlMs: 60_000 });
      await (earlier as NodeClaim).release();

      const firstTime = recordingOrder(store.db);
      const taken = await new JobClaims({ db: firstTime.db, queue: recordingQueue(), worker: 'host-a/1/aa', claimTtlMs: 60_000 }).take(job(runId, 'first'));
      expect(taken?.claim.token).toBe(1);
      // The checks went out before the claim came back (on PostgreSQL they are the claim's own
      // statement, which stores the attempt/claimed too), and not again after it.
      const claimBack = firstTime.order.indexOf('claim back');
      expect(claimBack).toBeGreaterThan(-1);
      expect(firstTime.order.slice(claimBack).filter((entry) => entry === 'check sent')).toEqual([]);
      if (backend.name === 'postgres') expect(firstTime.sent()).toBe(1);
      else expect(firstTime.order.indexOf('check sent')).toBeLessThan(claimBack);

      const secondTime = recordingOrder(store.db);
      const again = await new JobClaims({ db: secondTime.db, queue: recordingQueue(), worker: 'host-a/1/aa', claimTtlMs: 60_000 }).take(job(runId, 'again'));
      expect(again?.claim.token).toBe(2);
      // Another process held it: what the store said before the claim may be stale, so it is checked once the claim is held.
      expect(secondTime.order.slice(secondTime.order.indexOf('claim back'))).toContain('check sent');
      const claimedEvents = await readEvents(store.db, runId, { types: ['attempt/claimed'] });
      expect(claimedEvents.map((event) => [event.nodeId, event.payload.token])).toEqual([['first', 1], ['again', 2]]);
      for (const claimed of [taken, again]) await claimed?.claim.release();
    });

    it.skipIf(backend.name === 'postgres')("a round's nodes have the read they begin with started once their checks pass, before their attempt/claimed is stored; a round with no node going starts none", async () => {
      const { runId, log } = await runningRun(['read-a', 'read-b', 'old']);
      await log.append({ type: 'node/started', nodeId: 'old', payload: { attempt: 2 } });
      const order: string[] = [];
      const stopHearing = runLog(store.db, runId).onAppend((events) => {
        for (const event of events) if (event.type === 'attempt/claimed') order.push(`attempt/claimed ${event.nodeId} stored`);
      });
      const prefetch = async (run: { readonly id: string; readonly status: string }): Promise<void> => {
        order.push(`prefetch ${run.id === runId ? 'this run' : run.id} (${run.status})`);
      };
      const claims = new JobClaims({ db: store.db, queue: recordingQueue(), worker: 'host-a/1/aa', claimTtlMs: 60_000, prefetch });

      const taken = await Promise.all([claims.take(job(runId, 'read-a'), '21'), claims.take(job(runId, 'read-b'), '22')]);
      // A job of an attempt no longer current: its round lets the claim go, and nothing is read for it.
      const skipped = await claims.take(job(runId, 'old', 1), '23');

      expect(order).toEqual(['prefetch this run (running)', 'attempt/claimed read-a stored', 'attempt/claimed read-b stored']);
      expect(taken.every((claimed) => claimed?.prefetched !== undefined)).toBe(true);
      expect(skipped).toBeUndefined();
      stopHearing();
      for (const claimed of taken) await claimed?.claim.release();
    });

    it.runIf(backend.name === 'postgres')("a round's claims, checks and attempt/claimed are one statement; its nodes' first read begins once it is back for a run first seen, beside it for a run seen before", async () => {
      const { runId, log } = await runningRun(['read-a', 'read-b', 'read-c', 'old']);
      await log.append({ type: 'node/started', nodeId: 'old', payload: { attempt: 2 } });
      const recorded = recordingOrder(store.db);
      const order: string[] = [];
      const stopHearing = runLog(recorded.db, runId).onAppend((events) => {
        for (const event of events) if (event.type === 'attempt/claimed') order.push(`attempt/claimed ${event.nodeId} stored`);
      });
      const prefetch = async (run: { readonly id: string; readonly status: string }): Promise<void> => {
        order.push(`prefetch ${run.id === runId ? 'this run' : run.id} after ${recorded.sent()} statement(s)`);
      };
      const claims = new JobClaims({ db: recorded.db, queue: recordingQueue(), worker: 'host-a/1/aa', claimTtlMs: 60_000, prefetch });

      const first = await Promise.all([claims.take(job(runId, 'read-a'), '31'), claims.take(job(runId, 'read-b'), '32')]);
      const sentForFirst = recorded.sent();
      const later = await claims.take(job(runId, 'read-c'), '33');
      // A job of an attempt no longer current: the run is known, so its read began beside the claim anyway.
      const skipped = await claims.take(job(runId, 'old', 1), '34');

      expect(sentForFirst).toBe(1);
      expect(order).toEqual([
        'attempt/claimed read-a stored',
        'attempt/claimed read-b stored',
        'prefetch this run after 1 statement(s)',
        'prefetch this run after 1 statement(s)',
        'attempt/claimed read-c stored',
        'prefetch this run after 2 statement(s)',
      ]);
      expect([...first, later].every((claimed) => claimed?.prefetched !== undefined)).toBe(true);
      expect(skipped).toBeUndefined();
      expect(await readNodeClaim(store.db, runId, 'old')).toMatchObject({ worker: 'host-a/1/aa', alive: false });
      stopHearing();
      for (const claimed of [...first, later]) await claimed?.claim.release();
    });

    it('a node of a paused run, or whose attempt has an outcome committed and not yet settled, is not run: its claim is let go and nothing recorded', async () => {
      const { runId, log } = await runningRun(['done', 'fresh']);
      // A worker finished `done` (its outcome committed); the scheduler has not recorded it yet.
      await log.append({ type: 'attempt/finished', nodeId: 'done', payload: { attempt: 1, token: 1, worker: 'host-b/2/bb', outcome: 'succeeded', answer: 'ok', filesChanged: [] } });
      const claims = new JobClaims({ db: store.db, queue: recordingQueue(), worker: 'host-a/1/aa', claimTtlMs: 60_000 });

      const finished = await claims.take(job(runId, 'done'), '41');
      await store.db.updateTable('runs').set({ status: 'paused' }).where('id', '=', runId).execute();
      const paused = await claims.take(job(runId, 'fresh'), '42');

      expect([finished, paused]).toEqual([undefined, undefined]);
      expect(await readEvents(store.db, runId, { types: ['attempt/claimed'] })).toEqual([]);
      for (const nodeId of ['done', 'fresh']) expect(await readNodeClaim(store.db, runId, nodeId)).toMatchObject({ worker: 'host-a/1/aa', alive: false });
    });

    it("a node's retry is run: its first attempt's committed outcome was settled by the scheduler before the second began", async () => {
      const { runId, log } = await runningRun(['flaky']);
      await log.append({ type: 'attempt/finished', nodeId: 'flaky', payload: { attempt: 1, token: 1, worker: 'host-b/2/bb', outcome: 'failed', error: 'timed out', retryable: true } });
      await log.appendMany([
        { type: 'node/retried', nodeId: 'flaky', payload: { attempt: 1, delayMs: 0, error: 'timed out' } },
        { type: 'node/started', nodeId: 'flaky', payload: { attempt: 2 } },
      ]);
      const recorded = recordingOrder(store.db);

      const retried = await new JobClaims({ db: recorded.db, queue: recordingQueue(), worker: 'host-a/1/aa', claimTtlMs: 60_000 }).take(job(runId, 'flaky', 2), '51');

      expect(retried?.claim.nodeId).toBe('flaky');
      const claimedEvents = await readEvents(store.db, runId, { types: ['attempt/claimed'] });
      expect(claimedEvents.map((event) => [event.nodeId, event.payload.attempt])).toEqual([['flaky', 2]]);
      // On PostgreSQL the claim round's own statement found the retry current: nothing was checked after it.
      if (backend.name === 'postgres') expect(recorded.sent()).toBe(1);
      await retried?.claim.release();
    });

    it('a node whose claim is lost before its attempt/claimed is stored fails alone; the others of its round are stored', async () => {
      const { runId, log } = await runningRun(['edit-a', 'edit-b']);
      // Both were held before (and let go): their claims are checked after they are taken, not with them.
      for (const nodeId of ['edit-a', 'edit-b']) await ((await claimNode(store.db, runId, nodeId, { worker: 'host-b/2/bb', ttlMs: 60_000 })) as NodeClaim).release();
      const claims = new JobClaims({ db: store.db, queue: recordingQueue(), worker: 'host-a/1/aa', claimTtlMs: 60_000 });
      // `late`'s attempt is not stored yet: the round waits for it in its checks, holding all three claims.
      const taking = [job(runId, 'edit-a'), job(runId, 'edit-b'), job(runId, 'late')].map((each) => claims.take(each).then((claimed) => claimed, (error: unknown) => error));
      for (const deadline = Date.now() + 5_000; (await readNodeClaim(store.db, runId, 'late'))?.worker !== 'host-a/1/aa'; ) {
        if (Date.now() > deadline) throw new Error('the round never claimed its nodes');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Meanwhile edit-b's claim runs out and another worker takes the node.
      await store.db.updateTable('node_claims').set({ expires_at: new Date(0).toISOString() }).where('node_id', '=', 'edit-b').execute();
      expect(await claimNode(store.db, runId, 'edit-b', { worker: 'host-b/2/bb', ttlMs: 60_000 })).toBeInstanceOf(NodeClaim);
      await log.append({ type: 'node/started', nodeId: 'late', payload: { attempt: 1 } });

      const [a, b, late] = await Promise.all(taking);

      expect(b).toBeInstanceOf(StaleClaimError);
      expect([a, late].map((claimed) => (claimed as { claim: NodeClaim }).claim.nodeId)).toEqual(['edit-a', 'late']);
      const claimedEvents = await readEvents(store.db, runId, { types: ['attempt/claimed'] });
      expect(claimedEvents.map((event) => event.nodeId).sort()).toEqual(['edit-a', 'late']);
      for (const claimed of [a, late]) await (claimed as { claim: NodeClaim }).claim.release();
    });
  });
}
