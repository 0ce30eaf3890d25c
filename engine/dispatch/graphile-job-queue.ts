import type * as GraphileWorker from 'graphile-worker';
import { EventEmitter } from 'node:events';
import type { Logger, Runner, Task, WorkerEvents, WorkerUtils } from 'graphile-worker';
import { underSchemaChangeLock } from '../db/schema-change-lock.js';
import { fetchForIdleSlotsOnly } from './idle-slot-fetches.js';
import { NODE_TASK, nodeJobKeyPrefix, type JobQueue, type NodeJob } from './job-queue.js';

/**
 * graphile-worker (with pg and its config loader) is loaded by the first queue or runner: every
 * other command (`scan`, `status`, a SQLite run) starts without it.
 */
async function graphileWorker(): Promise<typeof GraphileWorker & { quiet: Logger }> {
  const module = await import('graphile-worker');
  // graphile-worker talks through our own log lines only: its own would interleave with the CLI's.
  return { ...module, quiet: new module.Logger(() => () => undefined) };
}

/** How often a runner looks for jobs when a LISTEN notification was missed (it is woken by NOTIFY otherwise). */
const FALLBACK_POLL_MS = 1_000;

/** The job queue on graphile-worker: jobs in the `graphile_worker` schema of the same database. */
export async function createGraphileJobQueue(connectionString: string): Promise<JobQueue> {
  const { makeWorkerUtils, quiet } = await graphileWorker();
  // graphile-worker migrates its schema when its utilities are made, and its migrations are not
  // safe to run from several processes at once (a fleet starting on a fresh database races on
  // `create schema`), nor while another process's store looks at the schema (schema-change-lock.ts):
  // under the lock that the store's migrations take too.
  const utils: WorkerUtils = await underSchemaChangeLock(connectionString, () => makeWorkerUtils({ connectionString, logger: quiet }));
  return {
    async enqueueNodes(jobs: readonly NodeJob[]) {
      if (jobs.length === 0) return;
      // One try: a node that fails is the scheduler's to retry (with its own attempt count), and a
      // worker that dies is noticed through its claim, not through the queue's 4-hour lock timeout.
      // All in one statement (graphile-worker's `add_jobs`, one notification): a wide stage reaches the workers at once.
      const specs = jobs.map((job) => ({ identifier: NODE_TASK, payload: job, job_key: job.dispatchKey, max_attempts: 1 }));
      await utils.withPgClient((client) =>
        client.query('SELECT id FROM graphile_worker.add_jobs((SELECT array_agg(spec) FROM json_populate_recordset(NULL::graphile_worker.job_spec, $1::json) AS spec))', [JSON.stringify(specs)]),
      );
    },
    async lockedSince(dispatchKeys) {
      if (dispatchKeys.length === 0) return new Map();
      // An unlocked job that has used its one try (unlocked by force) will never run: it counts as gone.
      const { rows } = await utils.withPgClient((client) =>
        client.query<{ key: string; locked_at: Date | null }>(
          'SELECT key, locked_at FROM graphile_worker.jobs WHERE task_identifier = $1 AND key = ANY($2::text[]) AND (locked_at IS NOT NULL OR attempts < max_attempts)',
          [NODE_TASK, [...dispatchKeys]],
        ),
      );
      return new Map(rows.map((row) => [row.key, row.locked_at]));
    },
    async dropLeftoverNodeJobs(runId, kept, held) {
      const dropped = new Map<string, number>();
      if (kept.length === 0) return dropped;
      const prefixes = kept.map((job) => nodeJobKeyPrefix(runId, job.nodeId));
      const nodeOf = (key: string): string => kept[prefixes.findIndex((prefix) => key.startsWith(prefix))]!.nodeId;
      // The jobs of all these nodes in one look-up (a worker's jobs taken together).
      const { rows: found } = await utils.withPgClient((client) =>
        client.query<{ id: string; key: string }>(
          'SELECT id, key FROM graphile_worker.jobs WHERE task_identifier = $1 AND locked_by IS NOT NULL AND NOT (id = ANY($3::bigint[])) AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS prefix WHERE left(key, length(prefix)) = prefix)',
          [NODE_TASK, prefixes, kept.map((job) => job.jobId)],
        ),
      );
      if (found.length === 0) return dropped;
      const holding = held === undefined ? undefined : await held;
      const rows = holding === undefined ? found : found.filter((row) => holding.has(nodeOf(row.key)));
      if (rows.length === 0) return dropped;
      // These jobs only, whoever holds them: graphile-worker's own completion deletes a job row by
      // id the same way (node jobs have no named queue). Unlocking their holders first would have
      // let go of every other job those holders have (graphile-worker 0.17 locks by worker pool),
      // jobs a live worker has taken but not started among them.
      const { rows: deleted } = await utils.withPgClient((client) => client.query<{ id: string }>('DELETE FROM graphile_worker._private_jobs WHERE id = ANY($1::bigint[]) RETURNING id', [rows.map((row) => row.id)]));
      const gone = new Set(deleted.map((row) => String(row.id)));
      for (const row of rows) {
        if (!gone.has(String(row.id))) continue;
        const nodeId = nodeOf(row.key);
        dropped.set(nodeId, (dropped.get(nodeId) ?? 0) + 1);
      }
      return dropped;
    },
    close: async () => {
      await utils.release();
    },
  };
}

export interface QueueRunner {
  /** Ends when the runner stops. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/** A graphile-worker runner for the given tasks, `concurrency` jobs at a time. */
export async function runQueueTasks(connectionString: string, tasks: Readonly<Record<string, (payload: unknown, job: { readonly id: string }) => Promise<void>>>, concurrency: number): Promise<QueueRunner> {
  const taskList: Record<string, Task> = {};
  for (const [name, handler] of Object.entries(tasks)) taskList[name] = async (payload, helpers) => handler(payload, { id: helpers.job.id });
  const { run, quiet } = await graphileWorker();
  // A runner migrates the schema too, when it starts: under the same lock as the queue's utilities.
  // The worker's slots share one fetch of the queue: a wide stage's jobs come in one `get_jobs`
  // instead of one `get_job` per idle slot (30 at once, competing with the stage's claims).
  const localQueue = { size: concurrency };
  // ... and only for the slots that are free: a busy worker leaves new jobs to the idle ones.
  const events = new EventEmitter();
  events.on('localQueue:init', ({ localQueue: queue }: { localQueue: unknown }) => fetchForIdleSlotsOnly(queue));
  // Jobs that end in the same turn of the event loop are completed in one statement (a stage's
  // nodes often do). A job's completion only tidies the queue: its outcome is already in the log.
  const completeJobBatchDelay = 0;
  const runner: Runner = await underSchemaChangeLock(connectionString, () =>
    run({ connectionString, concurrency, taskList, noHandleSignals: true, pollInterval: FALLBACK_POLL_MS, logger: quiet, events: events as WorkerEvents, preset: { worker: { localQueue, completeJobBatchDelay } } }),
  );
  return { done: runner.promise, stop: () => runner.stop() };
}
