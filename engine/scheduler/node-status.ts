import { DagentError } from '../errors.js';

/**
 * The lifecycle of one node in a schedule.
 *
 * - `pending`: waiting for dependencies (or for dispatch after a cancelled run resumes).
 * - `ready`: every dependency succeeded; queued for a slot and its write locks. A node whose
 *   attempt failed and will be retried goes `running → ready` (the `retried` transition) and
 *   waits out its backoff in `ready`: retrying is not a separate state, so attempts show only in
 *   the attempt counter and the `node/retried` event.
 * - `running`: its `execute` is in flight.
 * - `succeeded`, `failed` (retries exhausted or not retryable), `skipped` (a dependency failed,
 *   was skipped or cancelled, so it never starts), `cancelled` (the run was cancelled while the
 *   node was ready or running).
 *
 * `failed`, `skipped` and `cancelled` are final within one schedule but not for the run: on
 * resume (and when an amendment restarts them) they go back to `pending`, as does `running`
 * left behind by a killed process. `succeeded` is final for good.
 */
export type NodeStatus = 'pending' | 'ready' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export const NODE_STATUSES: readonly NodeStatus[] = ['pending', 'ready', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'];

const TRANSITIONS: Readonly<Record<NodeStatus, readonly NodeStatus[]>> = {
  // pending → ready: the last dependency succeeded. pending → skipped: a dependency will never succeed.
  pending: ['ready', 'skipped'],
  // ready → pending: an amendment gave it a dependency that is not done, or the run resumes.
  ready: ['running', 'pending', 'cancelled'],
  // running → ready: a retry after backoff. running → pending: resume after a crash.
  running: ['succeeded', 'failed', 'ready', 'cancelled', 'pending'],
  succeeded: [],
  failed: ['pending'],
  skipped: ['pending'],
  cancelled: ['pending'],
};

/** `LEGAL[from][to]`: one property read per transition on the scheduler's hot path. */
const LEGAL = Object.fromEntries(
  NODE_STATUSES.map((from) => [from, Object.fromEntries(NODE_STATUSES.map((to) => [to, TRANSITIONS[from].includes(to)]))]),
) as Readonly<Record<NodeStatus, Readonly<Record<NodeStatus, boolean>>>>;

/** The one transition function of a node: returns `to`, or throws `IllegalNodeTransitionError`. */
export function transitionNode(from: NodeStatus, to: NodeStatus, nodeId?: string): NodeStatus {
  if (!LEGAL[from][to]) throw new IllegalNodeTransitionError(from, to, nodeId);
  return to;
}

export function isNodeStatus(value: string): value is NodeStatus {
  return (NODE_STATUSES as readonly string[]).includes(value);
}

/** Succeeded, failed, skipped or cancelled: nothing more happens to it in this schedule. */
export function isSettledNodeStatus(status: NodeStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'skipped' || status === 'cancelled';
}

/**
 * The status a node starts from when a run resumes: succeeded nodes stay done; everything else
 * (including a node left `running` by a killed process) starts over from `pending`.
 */
export function resumeStatus(status: NodeStatus): NodeStatus {
  return status === 'succeeded' ? 'succeeded' : 'pending';
}

/** A move the node lifecycle does not allow; always a bug in the caller or the scheduler. */
export class IllegalNodeTransitionError extends DagentError {
  constructor(readonly from: NodeStatus, readonly to: NodeStatus, readonly nodeId?: string) {
    super(`${nodeId === undefined ? 'a node' : `node "${nodeId}"`} that is ${from} cannot become ${to}`);
  }
}
