export { DispatchedAttempts, outcomeOf, type DispatchedAttemptsOptions } from './dispatched-attempts.js';
export { executeNodeJob, type NodeJobContext, type NodeJobOutcome, type RunWorkspace } from './execute-node-job.js';
export { createGraphileJobQueue, runQueueTasks, type QueueRunner } from './graphile-job-queue.js';
export { NODE_TASK, wakeTaskOf, type JobQueue, type NodeJob } from './job-queue.js';
export { DEFAULT_NODE_CLAIM_TTL_MS, NodeClaim, StaleClaimError, claimNode, readNodeClaim, readNodeClaims, type ClaimNodeOptions, type NodeClaimHolder } from './node-claim.js';
export { startNodeWorker, workerIdOf, type NodeWorker, type NodeWorkerOptions } from './node-worker.js';
export { findOrphanedRuns } from './orphaned-runs.js';
export { NODE_OUTCOME_EVENT_TYPES, PENDING_RESULT_EVENT_TYPES, pendingResults } from './pending-results.js';
export { CloneWorkspace, applyNodePatch, git } from './clone-workspace.js';
