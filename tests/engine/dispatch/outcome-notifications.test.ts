import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DispatchedAttempts } from '../../../engine/dispatch/dispatched-attempts.js';
import type { JobQueue } from '../../../engine/dispatch/job-queue.js';
import { announceOutcome } from '../../../engine/dispatch/run-events-listener.js';
import { EventLog, createRun, type Store } from '../../../engine/index.js';
import { contractStores } from '../../helpers/contract-stores.js';

const postgres = contractStores().find((backend) => backend.name === 'postgres')!;

/** A run's scheduler hears its workers' outcomes as they commit, and nothing else its nodes append. */
describe.skipIf(!postgres.available)('outcome notifications on postgres', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await postgres.open()));
  afterEach(async () => cleanup());

  it("a worker's messages wake no read of the scheduler; its announced outcome is read at once", async () => {
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

      await worker.append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: 1, worker: 'w1', outcome: 'succeeded', answer: 'done', filesChanged: [] } });
      await announceOutcome(store.db, run.id);
      const heard = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('not heard'), 5_000))]);
      expect(heard).toMatchObject({ status: 'succeeded', result: { answer: 'done' } });
    } finally {
      await attempts.close();
    }
  });
});
