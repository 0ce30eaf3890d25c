import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DispatchedAttempts } from '../../../engine/dispatch/dispatched-attempts.js';
import type { JobQueue } from '../../../engine/dispatch/job-queue.js';
import { NodeClaim, claimNode, claimNodes, readNodeClaims } from '../../../engine/dispatch/node-claim.js';
import { OUTCOMES_NOTIFY_CHANNEL } from '../../../engine/session/one-statement-append.js';
import { hearNotifications } from '../../../engine/session/postgres-notifications.js';

import { EventLog, createRun, type Store } from '../../../engine/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

const postgres = contractStores().find((backend) => backend.name === 'postgres')!;

/** A run's scheduler hears its workers' outcomes as they commit, and nothing else its nodes append. */
describe.skipIf(!postgres.available)('outcome notifications on postgres', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await postgres.open()));
  afterEach(async () => cleanup());

  it("a worker's messages wake no read of the scheduler; its outcome is read as it commits", async () => {
    let reads = 0;
    const counting: KyselyPlugin = { transformQuery: ({ node }) => node, transformResult: async ({ result }) => ((reads += 1), result) };
    const schedulerDb = store.db.withPlugin(counting);
    const run = await createRun(store.db, { task: 'notify', workspace: '/repo', mode: 'plan' });
    const queue: JobQueue = { enqueueNodes: async () => undefined, lockedSince: async () => new Map(), dropLeftoverNodeJobs: async () => new Map(), close: async () => undefined };
    // No poll in this story: only a notification can wake the scheduler.
    const attempts = await new DispatchedAttempts({ db: schedulerDb, runId: run.id, queue, pollMs: 600_000, listenUrl: store.url }).open();
    try {
      const outcome = attempts.execute('edit-a', { attempt: 1, signal: new AbortController().signal, durable: Promise.resolve(), planVersion: 1 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const readsBefore = reads;

      // The worker's node talks to its model: a dozen appends, each its own statement (and notification of the run's inserts).
      const worker = new EventLog(store.db, run.id);
      for (let step = 1; step <= 12; step += 1) {
        await worker.append({ type: 'assistant/message', nodeId: 'edit-a', turn: 1, step, payload: { content: `step ${step}`, toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'scripted' } });
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reads).toBe(readsBefore);

      const claim = await claimNode(store.db, run.id, 'edit-a', { worker: 'w1' });
      if (!(claim instanceof NodeClaim)) throw new Error('the node was not claimed');
      // The statement that stores the outcome is what tells the scheduler.
      await worker.append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: claim.token, worker: 'w1', outcome: 'succeeded', answer: 'done', filesChanged: [] } }, { fence: claim.appendFence() });
      const heard = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('not heard'), 5_000))]);
      expect(heard).toMatchObject({ status: 'succeeded', result: { answer: 'done' } });
    } finally {
      await attempts.close();
    }
  });

  it('claims released in the same turn go in one statement', async () => {
    let statements = 0;
    const counting: KyselyPlugin = { transformQuery: ({ node }) => node, transformResult: async ({ result }) => ((statements += 1), result) };
    const workerDb = store.db.withPlugin(counting);
    const run = await createRun(store.db, { task: 'release', workspace: '/repo', mode: 'plan' });
    const claims = [...(await claimNodes(workerDb, run.id, ['read-a', 'read-b', 'read-c'], { worker: 'w1' })).values()].filter((claim) => claim instanceof NodeClaim);
    expect(claims).toHaveLength(3);
    const before = statements;

    await Promise.all(claims.map((claim) => claim.release()));

    expect(statements - before).toBe(1);
    const rows = await readNodeClaims(store.db, run.id, ['read-a', 'read-b', 'read-c']);
    expect([...rows.values()].map((holder) => holder.alive)).toEqual([false, false, false]);
    // Released means free: another worker takes each at once, with the next token.
    const again = await claimNodes(store.db, run.id, ['read-a', 'read-b', 'read-c'], { worker: 'w2' });
    expect([...again.values()].map((claim) => (claim instanceof NodeClaim ? claim.token : 'held'))).toEqual([2, 2, 2]);
    for (const claim of again.values()) if (claim instanceof NodeClaim) await claim.release();
  });

  it('an append that stores no outcome notifies no scheduler, and one refused by its fence notifies none either', async () => {
    const run = await createRun(store.db, { task: 'quiet', workspace: '/repo', mode: 'plan' });
    const heard: string[] = [];
    const stopListening = await hearNotifications(store.url, {
      onNotification: (message) => {
        if (message.channel === OUTCOMES_NOTIFY_CHANNEL && message.payload === run.id) heard.push(run.id);
      },
      onLost: () => undefined,
    }, [OUTCOMES_NOTIFY_CHANNEL]);
    try {
      const log = new EventLog(store.db, run.id);
      await log.append({ type: 'node/started', nodeId: 'edit-a', payload: { attempt: 1 } });
      const stale = await claimNode(store.db, run.id, 'edit-a', { worker: 'w1' });
      if (!(stale instanceof NodeClaim)) throw new Error('the node was not claimed');
      await stale.release();
      const refused = await log
        .append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: stale.token, worker: 'w1', outcome: 'succeeded', answer: 'late', filesChanged: [] } }, { fence: stale.appendFence() })
        .then(() => 'stored', (error: unknown) => (error as Error).name);
      await new Promise((resolve) => setTimeout(resolve, 200));

      expect(refused).toBe('StaleClaimError');
      expect(heard).toEqual([]);
    } finally {
      await stopListening();
    }
  });
});
