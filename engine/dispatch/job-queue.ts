/** One node attempt for a worker: which run and node, and a key that makes a re-dispatch a new job. */
export interface NodeJob {
  readonly runId: string;
  readonly nodeId: string;
  readonly attempt: number;
  readonly dispatchKey: string;
}

/**
 * What dispatch needs of a PostgreSQL job queue (graphile-worker behind it, see
 * `createGraphileJobQueue`): put node attempts on the queue, and see what became of their jobs. (A
 * run's scheduler hears a worker's outcome from the log itself: `DispatchedAttemptsOptions.listenUrl`.)
 */
export interface JobQueue {
  /** Puts node attempts on the queue, all in one write. */
  enqueueNodes(jobs: readonly NodeJob[]): Promise<void>;
  /**
   * When the worker that took each of these node jobs (by `dispatchKey`) locked it; null while it
   * waits in the queue; absent once it is gone (done, or dropped).
   */
  lockedSince(dispatchKeys: readonly string[]): Promise<Map<string, Date | null>>;
  /**
   * Drops the jobs of these nodes of a run still locked by a worker other than the one running the
   * node's job `jobId`: left by a process that died holding them (the node's claim has been taken
   * over since). Returns how many were dropped, by node. With `held`, the jobs are looked up at
   * once and dropped once it settles, only those of the nodes in it: the look-up goes beside the
   * claims of the nodes, the drop after them (a node's jobs are dropped only by the node's holder).
   */
  dropLeftoverNodeJobs(runId: string, kept: readonly { readonly nodeId: string; readonly jobId: string }[], held?: Promise<ReadonlySet<string>>): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/** The key prefix every dispatch of one node shares (node ids have no colon). */
export const nodeJobKeyPrefix = (runId: string, nodeId: string): string => `${runId}:${nodeId}:`;

/** The task of node jobs on the queue: every worker takes them. */
export const NODE_TASK = 'dagent-node';
