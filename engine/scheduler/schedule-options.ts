import type { NodeStatus } from './node-status.js';
import type { NodeTransition } from './node-transition.js';
import type { NodeRetryPolicy } from './retry-verdict.js';
import type { ExecuteNode, NodeWaitsFor, SchedulableNode } from './schedulable-node.js';

/**
 * `eager`: a node is dispatched the moment its last dependency succeeds (the default).
 * `batch`: every ready node is dispatched together and the next batch waits for the whole one.
 */
export type ScheduleMode = 'eager' | 'batch';

/** The nodes and their statuses at one moment, for a replanning decision. */
export interface ScheduleSnapshot {
  readonly nodes: readonly SchedulableNode[];
  readonly statuses: ReadonlyMap<string, NodeStatus>;
}

/**
 * A new node list for a running schedule. Running and succeeded nodes must stay, with the same
 * `dependsOn` and `writes`; pending, ready, skipped, failed and cancelled nodes may be rewired or
 * removed; new ids start pending. `restart` names failed, cancelled or skipped nodes to run again
 * (with a fresh retry budget).
 */
export interface Amendment {
  readonly nodes: readonly SchedulableNode[];
  readonly restart?: readonly string[];
}

/** Builds an amendment while dispatch is held; `undefined` leaves the schedule as it is. */
export type Replan = (snapshot: ScheduleSnapshot, signal: AbortSignal) => Promise<Amendment | undefined>;

/** A node that failed for good: retries exhausted or not retryable. */
export interface NodeFailure {
  readonly nodeId: string;
  readonly error: string;
  readonly attempts: number;
  /** What the failure waits for outside the run (the attempt's `waitsFor`). */
  readonly waitsFor?: NodeWaitsFor;
}

/** `closed`: the schedule had finished, was cancelled or failed before the amendment could apply. */
export type AmendOutcome = 'applied' | 'unchanged' | 'closed';

export interface ScheduleOptions<R = unknown> {
  readonly nodes: readonly SchedulableNode[];
  readonly mode?: ScheduleMode;
  /** Most node attempts running at once. */
  readonly concurrency: number;
  /**
   * A node's expected cost, in any unit the schedule's nodes share (default 1 each). When more
   * nodes are ready than slots are free, the one with the costliest chain of work ahead of it
   * (its own cost and its dependents') starts first; equal ones in the order of `nodes`.
   */
  readonly costOf?: (node: SchedulableNode) => number;
  /**
   * Whether unordered nodes whose writes overlap wait for each other (default `true`, for nodes
   * sharing one working copy); `false` where each node has its own workspace and their changes merge.
   */
  readonly lockWrites?: boolean;
  /** Cancels the schedule: running attempts are aborted and become cancelled, pending nodes stay pending. */
  readonly signal?: AbortSignal;
  readonly execute: ExecuteNode<R>;
  /**
   * Stores a group of transitions (so the caller can write them with their events in one
   * transaction). Calls come in the order the transitions were decided and never overlap;
   * transitions decided while one is in flight arrive together in the next (a group commit).
   * Attempts do not wait for it to start: each holds `NodeExecution.durable`, which resolves once
   * its `started` is stored. Retry timers, the failure hook and amendment answers wait for the
   * group they belong to, and the schedule settles only once every transition is stored. A throw
   * stops the schedule: running attempts are aborted and awaited, their barriers reject, and the
   * schedule's promise rejects with the error. Not given an abort signal on purpose: recording a
   * cancellation must not itself be cancelled.
   */
  readonly onTransitions?: (changes: readonly NodeTransition<R>[]) => Promise<void>;
  /**
   * Awaited, with dispatch held, when a node fails for good and before its dependents are
   * skipped: return an amendment (append nodes, rewire pending ones) to go on with, or
   * `undefined` to let the failure stand.
   */
  readonly onNodeFailed?: (failure: NodeFailure, snapshot: ScheduleSnapshot, signal: AbortSignal) => Promise<Amendment | undefined>;
  /** Statuses from an earlier session (a resume): succeeded nodes never run again, all others restart from pending. */
  readonly initialStatus?: ReadonlyMap<string, NodeStatus>;
  /** Attempts made in earlier sessions, so attempt numbers keep counting. */
  readonly initialAttempts?: ReadonlyMap<string, number>;
  readonly retry?: Partial<NodeRetryPolicy>;
  /** Waits out a retry backoff; rejects when `signal` aborts. Defaults to a timer. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Random numbers in [0, 1) for retry jitter. Defaults to `Math.random`. */
  readonly random?: () => number;
}

export interface NodeReport<R = unknown> {
  readonly status: NodeStatus;
  readonly attempts: number;
  readonly result?: R;
  readonly error?: string;
}

export interface ScheduleResult<R = unknown> {
  /** `succeeded` when every node succeeded; `cancelled` when the signal aborted; otherwise `failed`. */
  readonly status: 'succeeded' | 'failed' | 'cancelled';
  readonly nodes: ReadonlyMap<string, NodeReport<R>>;
}
