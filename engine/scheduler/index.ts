/**
 * Runs a DAG of nodes through a bounded queue: eager or batch dispatch, per-file write locks,
 * bounded retries, cancellation, resume from earlier statuses and amendments while running.
 * Every transition goes to `onTransitions`, in order; an attempt is started while its start is
 * being stored and holds `NodeExecution.durable` to wait for it before it changes anything.
 */
export { IllegalNodeTransitionError, isNodeStatus, isSettledNodeStatus, NODE_STATUSES, resumeStatus, transitionNode, type NodeStatus } from './node-status.js';
export type { NodeTransition, NodeTransitionKind } from './node-transition.js';
export type { ExecuteNode, NodeExecution, NodeOutcome, NodeWaitsFor, SchedulableNode } from './schedulable-node.js';
export { createScheduleGraph, type ScheduleGraph } from './schedule-graph.js';
export { readyNodes, type ReadyNodesResult, type SkippedNode } from './ready-nodes.js';
export { WriteLocks, writePatternsMayOverlap } from './write-locks.js';
export { DEFAULT_NODE_RETRY_POLICY, nodeRetryVerdict, type FailedAttempt, type NodeRetryPolicy, type NodeRetryVerdict } from './retry-verdict.js';
export { amendmentIssues } from './amendment-issues.js';
export type {
  Amendment,
  AmendOutcome,
  NodeFailure,
  NodeReport,
  Replan,
  ScheduleMode,
  ScheduleOptions,
  ScheduleResult,
  ScheduleSnapshot,
} from './schedule-options.js';
export { runSchedule, startSchedule, type ScheduleHandle } from './scheduler.js';
export { ScheduleAmendError, ScheduleInputError } from './scheduler-errors.js';
