/** One node attempt for a worker: which run and node, and a key that makes a re-dispatch a new job. */
export interface NodeJob {
  readonly runId: string;
  readonly nodeId: string;
  readonly attempt: number;
  readonly dispatchKey: string;
}

/**
 * What dispatch needs of a PostgreSQL job queue (graphile-worker behind it, see
 * `createGraphileJobQueue`): put a node attempt on the queue, and wake a run's scheduler when an
 * attempt's outcome is in the log.
 */
export interface JobQueue {
  enqueueNode(job: NodeJob): Promise<void>;
  wakeScheduler(runId: string): Promise<void>;
  close(): Promise<void>;
}

/** The task names on the queue: every worker takes node jobs; only a run's scheduler takes its wake-ups. */
export const NODE_TASK = 'dagent-node';
export const wakeTaskOf = (runId: string): string => `dagent-wake:${runId}`;
