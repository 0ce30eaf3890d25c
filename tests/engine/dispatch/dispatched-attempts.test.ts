import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DispatchedAttempts } from '../../../engine/dispatch/dispatched-attempts.js';
import type { JobQueue, NodeJob } from '../../../engine/dispatch/job-queue.js';
import { createRun, runLog, type SessionEvent, type Store } from '../../../engine/index.js';
import { openTempStore } from '../../helpers/temp-store.js';
import { until } from './fleet-harness.js';

/** A queue that answers only what a story gives it; the rest does nothing and finds nothing. */
function queueOf(parts: Partial<JobQueue>): JobQueue {
  return { enqueueNodes: async () => undefined, lockedSince: async () => new Map(), dropLeftoverNodeJobs: async () => new Map(), close: async () => undefined, ...parts };
}

/** A started attempt as the scheduler hands it over: its `node/started` stored, never cancelled. */
const STARTED = { signal: new AbortController().signal, durable: Promise.resolve(), planVersion: 1 };

/** The scheduler's side of dispatch: when a started node goes on the queue, and when it goes again. */
describe('dispatched attempts', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await openTempStore()));
  afterEach(async () => cleanup());

  it('a node handed over goes on the queue before anything is read; again only once its job is gone and no worker holds it', async () => {
    const statements: string[] = [];
    // Every statement run through `db` is counted as it answers: the builder's queries and the
    // prepared ones (the log's reads and appends), which skip query transforms.
    const recording: KyselyPlugin = {
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        statements.push('statement');
        return result;
      },
    };
    const db = store.db.withPlugin(recording);
    const run = await createRun(db, { task: 'dispatch', workspace: '/repo', mode: 'plan' });
    const enqueued: { jobs: NodeJob[]; statementsBefore: number }[] = [];
    let waitingJobs = new Map<string, Date | null>();
    const queue: JobQueue = {
      enqueueNodes: async (jobs) => {
        if (jobs.length > 0) enqueued.push({ jobs: [...jobs], statementsBefore: statements.length });
      },
      lockedSince: async (keys) => new Map([...waitingJobs].filter(([key]) => keys.includes(key))),
      dropLeftoverNodeJobs: async () => new Map(),
      close: async () => undefined,
    };
    // No poll in this story: each pass is asked for.
    const attempts = await new DispatchedAttempts({ db, runId: run.id, queue, pollMs: 600_000 }).open();
    try {
      const handedOverAt = statements.length;
      void attempts.execute('edit-a', { attempt: 1, signal: new AbortController().signal, durable: Promise.resolve(), planVersion: 1 });
      await until('the node on the queue', async () => enqueued.length === 1, 5_000, []);
      expect(enqueued[0]!.statementsBefore).toBe(handedOverAt);
      const firstKey = enqueued[0]!.jobs[0]!.dispatchKey;

      // Its job waits in the queue: a pass leaves it there.
      waitingJobs = new Map([[firstKey, null]]);
      const beforePass = statements.length;
      attempts.wake();
      await until('a pass over the waiting node', async () => statements.length > beforePass + 1, 5_000, []);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(enqueued).toHaveLength(1);

      // The job is gone (its worker failed before claiming), and no claim holds the node: queued again, under a new key.
      waitingJobs = new Map();
      attempts.wake();
      await until('the node queued again', async () => enqueued.length === 2, 5_000, []);
      expect(enqueued[1]!.jobs[0]).toMatchObject({ nodeId: 'edit-a', attempt: 1 });
      expect(enqueued[1]!.jobs[0]!.dispatchKey).not.toBe(firstKey);
    } finally {
      await attempts.close();
    }
  });

  it("a worker's report of missed work reaches the run before its node's outcome does", async () => {
    const run = await createRun(store.db, { task: 'dispatch', workspace: '/repo', mode: 'plan' });
    const queue = queueOf({});
    const attempts = await new DispatchedAttempts({ db: store.db, runId: run.id, queue, pollMs: 600_000 }).open();
    const heard: string[] = [];
    const stop = attempts.onReports((events) => heard.push(...events.map((event) => `${event.type} ${event.nodeId}`)));
    try {
      const log = runLog(store.db, run.id);
      await log.append({ type: 'node/started', nodeId: 'edit-a', payload: { attempt: 1 } });
      const outcome = attempts.execute('edit-a', { attempt: 1, signal: new AbortController().signal, durable: Promise.resolve(), planVersion: 1 }).then((result) => {
        heard.push(`outcome ${result.status}`);
        return result;
      });
      // What the worker appends: the report while its node works, then the attempt's end.
      await log.append({ type: 'work/reported', nodeId: 'edit-a', payload: { title: 'Update b', files: ['src/b.ts'], reason: 'b calls the renamed function' } });
      await log.append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: 1, worker: 'w-1', outcome: 'succeeded', answer: 'done', filesChanged: ['src/a.ts'] } });
      attempts.wake();

      expect((await outcome).status).toBe('succeeded');
      expect(heard).toEqual(['work/reported edit-a', 'outcome succeeded']);
      const seen: SessionEvent[] = [];
      stop();
      attempts.onReports((events) => seen.push(...events));
      // Read once: a later pass does not hand the same report over again.
      attempts.wake();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).toEqual([]);
    } finally {
      await attempts.close();
    }
  });

  it('a node handed over goes on the queue while a pass over the other waiting nodes is still reading', async () => {
    const run = await createRun(store.db, { task: 'dispatch', workspace: '/repo', mode: 'plan' });
    const enqueued: string[] = [];
    let looking: () => void = () => undefined;
    const lookedAt = new Promise<void>((resolve) => (looking = resolve));
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const queue = queueOf({
      enqueueNodes: async (jobs) => void enqueued.push(...jobs.map((job) => job.nodeId)),
      // The queue is slow to say which jobs wait in it: the pass is held up here.
      lockedSince: async () => {
        looking();
        await answered;
        return new Map();
      },
    });
    const attempts = await new DispatchedAttempts({ db: store.db, runId: run.id, queue, pollMs: 600_000 }).open();
    try {
      // Outcomes never come in this story: the nodes fail once the store closes under the pass.
      attempts.execute('edit-a', { attempt: 1, ...STARTED }).catch(() => undefined);
      await until('the first node on the queue', async () => enqueued.length === 1, 5_000, []);
      attempts.wake();
      await lookedAt;

      attempts.execute('edit-b', { attempt: 1, ...STARTED }).catch(() => undefined);

      await until('the second node on the queue while the pass waits', async () => enqueued.includes('edit-b'), 5_000, []);
      answer();
    } finally {
      answer();
      await attempts.close();
    }
  });

  it("a node's outcome is handed over while another node's job is still being written; that node goes on the queue once", async () => {
    const run = await createRun(store.db, { task: 'dispatch', workspace: '/repo', mode: 'plan' });
    const enqueued: NodeJob[] = [];
    const written = new Set<string>();
    let writeB: () => void = () => undefined;
    const slowWrite = new Promise<void>((resolve) => (writeB = resolve));
    const queue = queueOf({
      // edit-b's job is slow to write; the queue shows each job once it is written.
      enqueueNodes: async (jobs) => {
        enqueued.push(...jobs);
        if (jobs.some((job) => job.nodeId === 'edit-b')) await slowWrite;
        for (const job of jobs) written.add(job.dispatchKey);
      },
      lockedSince: async (keys) => new Map(keys.filter((key) => written.has(key)).map((key) => [key, null])),
    });
    const attempts = await new DispatchedAttempts({ db: store.db, runId: run.id, queue, pollMs: 600_000 }).open();
    try {
      const outcomeA = attempts.execute('edit-a', { attempt: 1, ...STARTED });
      await until('edit-a on the queue', async () => written.size === 1, 5_000, []);
      attempts.execute('edit-b', { attempt: 1, ...STARTED }).catch(() => undefined);
      await until("edit-b's job being written", async () => enqueued.length === 2, 5_000, []);

      await runLog(store.db, run.id).append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: 1, worker: 'w-1', outcome: 'succeeded', answer: 'done', filesChanged: [] } });
      attempts.wake();

      const timedOut = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 2_000));
      expect(await Promise.race([outcomeA.then((outcome) => outcome.status), timedOut])).toBe('succeeded');
      writeB();
      await until("edit-b's job written", async () => written.size === 2, 5_000, []);
      attempts.wake();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(enqueued.map((job) => job.nodeId)).toEqual(['edit-a', 'edit-b']);
    } finally {
      writeB();
      await attempts.close();
    }
  });

  it('a node whose job cannot be put on the queue fails with the queue\'s error, and the other waiting nodes do not', async () => {
    const run = await createRun(store.db, { task: 'dispatch', workspace: '/repo', mode: 'plan' });
    let refuse = false;
    const queue = queueOf({
      enqueueNodes: async () => {
        if (refuse) throw new Error('queue unreachable: connection refused');
      },
    });
    const attempts = await new DispatchedAttempts({ db: store.db, runId: run.id, queue, pollMs: 600_000 }).open();
    try {
      const first = attempts.execute('edit-a', { attempt: 1, ...STARTED });
      await new Promise((resolve) => setTimeout(resolve, 20));
      refuse = true;

      const second = attempts.execute('edit-b', { attempt: 1, ...STARTED });

      await expect(second).rejects.toThrow('queue unreachable: connection refused');
      const log = runLog(store.db, run.id);
      await log.append({ type: 'attempt/finished', nodeId: 'edit-a', payload: { attempt: 1, token: 1, worker: 'w-1', outcome: 'succeeded', answer: 'done', filesChanged: [] } });
      refuse = false;
      attempts.wake();
      expect((await first).status).toBe('succeeded');
    } finally {
      await attempts.close();
    }
  });
});
