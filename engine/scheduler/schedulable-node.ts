/**
 * What the scheduler needs of a plan node: its id, what it waits for, and the files it may
 * write (workspace-relative paths or globs). Plan nodes satisfy this structurally.
 */
export interface SchedulableNode {
  readonly id: string;
  readonly dependsOn: readonly string[];
  readonly writes: readonly string[];
}

/**
 * What a failed node waits for outside the run, when its failure is not the work's own:
 * `human-approval`, a risky call was denied because no one was there to approve it. The scheduler
 * only carries it, to the `failed` transition and the failure hook, for the caller's verdict.
 */
export type NodeWaitsFor = 'human-approval';

/** How one attempt of a node ended. `retryable` defaults to true. */
export type NodeOutcome<R = unknown> =
  | { readonly status: 'succeeded'; readonly result: R }
  | { readonly status: 'failed'; readonly error: string; readonly retryable?: boolean; readonly waitsFor?: NodeWaitsFor };

export interface NodeExecution {
  /** Aborted when the run is cancelled; the attempt should stop and return (or throw) promptly. */
  readonly signal: AbortSignal;
  /** 1 for the first attempt of the node in this run, counting attempts of earlier sessions. */
  readonly attempt: number;
  /**
   * Resolves once this attempt's `started` transition (and every transition before it) is
   * stored; rejects when storing fails, and the schedule then stops. The attempt is started
   * while its start is being stored, so work that leaves no trace (reading the workspace,
   * building a prompt) overlaps the write; anything that must survive a crash (changing a file,
   * running a command, appending to the log) waits for this first.
   */
  readonly durable: Promise<void>;
}

/** Runs one attempt of a node. Throwing counts as a retryable failure with the error's message. */
export type ExecuteNode<R = unknown> = (nodeId: string, execution: NodeExecution) => Promise<NodeOutcome<R>>;
