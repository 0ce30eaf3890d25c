import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { errorMessage } from '../errors.js';
import { warmSecretShapes } from '../secret-redactor.js';
import { warmEventChecks } from '../session/event-types.js';
import { getRun } from '../run/storage/run-store.js';
import { CONTROL_NOTIFY_CHANNEL, eventsNotification, hearNotifications, holdListening } from '../session/postgres-notifications.js';
import { runQueueTasks, type QueueRunner } from './graphile-job-queue.js';
import { executeNodeJob, prepareRun, refreshRunFold, type NodeJobContext } from './execute-node-job.js';
import { NODE_TASK, type NodeJob } from './job-queue.js';
import { findOrphanedRuns } from './orphaned-runs.js';
import { ClaimsFirst } from './claims-first.js';
import { JobClaims } from './job-claims.js';
import { RunWatches } from './run-watches.js';

export interface NodeWorkerOptions extends Omit<NodeJobContext, 'worker' | 'signal'> {
  readonly connectionString: string;
  readonly concurrency: number;
  /** Schedules a run whose scheduler died (claims it first; refused when another worker was quicker). */
  readonly adopt?: (runId: string) => Promise<void>;
  /** How often to look for runs whose scheduler is gone (ms). */
  readonly adoptEveryMs?: number;
  /** A run this worker ran nodes of has ended and none of its nodes runs here: close what the worker opened for it. */
  readonly onRunEnded?: (runId: string) => Promise<void>;
  /**
   * The backends of the store's connections (`Store.ownBackends`): the runs' followers read for
   * other processes' inserts only, and only those make a node look for steering in the store.
   */
  readonly ownBackends?: ReadonlySet<number>;
}

export interface NodeWorker {
  readonly id: string;
  /** Stops taking jobs, lets running ones finish (and the adopted schedules end), then resolves. */
  drain(): Promise<void>;
  /** Aborts running jobs too: their nodes are left to another worker once their claims expire. */
  stop(): Promise<void>;
}

/** Worker ids: `host/pid/random`, so `status` and the log say where a node ran. */
export function workerIdOf(): string {
  return `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
}

/**
 * What a worker's first nodes would pay on first use, for a worker to pay before it says it is
 * ready (a run process does it while its tokenizer's thread loads and counts, `warmNodePrompts`):
 * every event type's payload check, built and run once; the secret shapes' patterns, compiled.
 * Part of `dagent worker`'s warm-up.
 */
export function warmWorkerFirstUses(): void {
  warmEventChecks(() => true);
  warmSecretShapes();
}

/** A worker process's loop: node jobs from the queue, `concurrency` at a time, and adoption of orphaned runs. */
export async function startNodeWorker(options: NodeWorkerOptions): Promise<NodeWorker> {
  const id = workerIdOf();
  const abort = new AbortController();
  const watches = new RunWatches({
    store: { db: options.db, dialect: 'postgres', url: options.connectionString, ...(options.ownBackends === undefined ? {} : { ownBackends: options.ownBackends }) },
    ...(options.onRunEnded === undefined ? {} : { onRunEnded: options.onRunEnded }),
    ...(options.report === undefined ? {} : { report: options.report }),
  });
  const base = { ...options, worker: id, signal: abort.signal, watchRun: (runId: string) => watches.enter(runId), claimsFirst: new ClaimsFirst() };
  const claims = new JobClaims({ ...base, prefetch: (run) => refreshRunFold(base, run) });
  const context: NodeJobContext = { ...base, claims };
  // The runs' watches hear the store on one listening connection, opened now: the first node of
  // each run here would otherwise wait for it to open. One that cannot open is opened by the first watch.
  const stopHolding = await holdListening(options.connectionString).catch(() => undefined);
  // A run dispatched to workers is prepared for at once (`prepareRun`), before its first job: its
  // watch is entered first, so the run's end lets go of what was opened for it.
  const stopHearing = await hearDispatchedRuns(options.connectionString, async (runId) => {
    const watch = watches.enter(runId);
    try {
      const run = await getRun(options.db, runId);
      claims.seeRun(run);
      await prepareRun(base, run);
    } catch {
      // What failed here (a run of another workspace mode, say) fails its first node here, which reports it.
    } finally {
      (await watch).leave();
    }
  });
  const runner: QueueRunner = await runQueueTasks(
    options.connectionString,
    {
      [NODE_TASK]: async (payload, queued) => {
        await executeNodeJob(payload as NodeJob, context, queued);
      },
    },
    options.concurrency,
  );
  const adoptions = new Set<Promise<void>>();
  let adopting = false;
  const adoptTimer =
    options.adopt === undefined
      ? undefined
      : setInterval(() => {
          if (adopting) return;
          adopting = true;
          const adopt = options.adopt!;
          const pass = findOrphanedRuns(options.db)
            .then(async (runIds) => {
              for (const runId of runIds) await adopt(runId).catch((error: unknown) => options.report?.(`run ${runId} not adopted: ${errorMessage(error)}`));
            })
            .catch((error: unknown) => options.report?.(`looking for orphaned runs failed: ${errorMessage(error)}`))
            .finally(() => {
              adopting = false;
              adoptions.delete(pass);
            });
          adoptions.add(pass);
        }, options.adoptEveryMs ?? 5_000);
  adoptTimer?.unref();
  const drain = async (): Promise<void> => {
    if (adoptTimer !== undefined) clearInterval(adoptTimer);
    // No run is readied from here on; those being readied are, before the runs are let go of.
    await stopHearing();
    await runner.stop();
    await Promise.allSettled([...adoptions]);
    await watches.close();
    await stopHolding?.();
  };
  return {
    id,
    drain,
    async stop() {
      abort.abort(new Error(`worker ${id} stopped`));
      await drain();
    },
  };
}

/**
 * Calls `prepare` with each run dispatched to workers (`dispatch/started`) as the store says it is,
 * once at a time per run. The returned stop ends the hearing and waits for the runs being prepared.
 */
async function hearDispatchedRuns(url: string, prepare: (runId: string) => Promise<void>): Promise<() => Promise<void>> {
  const preparing = new Map<string, Promise<void>>();
  const stopHearing = await hearNotifications(url, {
    onNotification: (message) => {
      if (message.channel !== CONTROL_NOTIFY_CHANNEL) return;
      const { runId, types } = eventsNotification(message.payload);
      if (types?.includes('dispatch/started') !== true || preparing.has(runId)) return;
      preparing.set(runId, prepare(runId).finally(() => preparing.delete(runId)));
    },
    onLost: () => undefined,
  }, [CONTROL_NOTIFY_CHANNEL]).catch(() => undefined);
  return async () => {
    await stopHearing?.();
    await Promise.allSettled([...preparing.values()]);
  };
}
