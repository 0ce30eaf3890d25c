export { IllegalRunTransitionError, RUN_STATUSES, isRunStatus, isTerminalRunStatus, transitionRun, type RunStatus } from './run-status.js';
export { createRun, getRun, listRuns, runFromRow, type CreateRunInput, type RunMode, type RunRecord } from './run-store.js';
export {
  RUN_VIEW_EVENT_TYPES,
  emptyRunView,
  foldRunView,
  reduceRunView,
  type CompactionView,
  type NodeView,
  type NodeViewStatus,
  type PendingApproval,
  type PlanChangeView,
  type ReplanView,
  type ReportedWork,
  type RunView,
  type TokenTotals,
} from './run-view.js';
export { planChangeSummary } from './plan-change-summary.js';
export {
  MIN_APPROVED_HASH_CHARS,
  NoPlanError,
  PlanChangedError,
  PlanNotApprovedError,
  approvePlan,
  currentPlan,
  executablePlan,
  listPlanVersions,
  planVersion,
  rejectPlan,
  savePlan,
  setRunStatus,
  type SavePlanInput,
  type SavedPlan,
  type StoredPlan,
} from './plan-store.js';
export { applyPlanPatch, missedWorkNode, type PatchContext } from './apply-plan-patch.js';
export { processStartTime, stopEarlierCommands } from './earlier-commands.js';
export { unkeptPromise, type NodeAction, type NodeOutcomeInput } from './node-outcome.js';
export { DEFAULT_ROLES, commandFailure, executePlanNode, type NodeAttempt, type NodeAttemptResult, type NodeRuntime, type ResolvedModel, type RolePrompt } from './execute-plan-node.js';
export type { NodeFiles } from './node-files.js';
export { NODE_SYSTEM_SECTIONS, handoffMessage, nodeInstruction } from './node-prompt.js';
export type { AmendInput, CompletedNode, PlanInput, PlanPatch, Planner, ReplanTrigger } from './planner.js';
export type { PlanLinter } from './plan-linter.js';
export { DEFAULT_RUN_SETTINGS, changedCommandNodes, executeRun, type ExecuteRunOptions, type RemoteAttempts, type NodeResult, type RunResult, type RunSettings } from './run-controller.js';
export { appendNodeTransitions, nodeTransitionDrafts, writeNodeProjection, type DescribedResult, type NodeTotals, type ProjectionContext } from './node-projection.js';
export { endRun, type RunEnding } from './end-run.js';
export { REACT_NODE_ID, REACT_SYSTEM_SECTIONS, executeReactRun, type ExecuteReactRunOptions } from './execute-react-run.js';
export { planTask, type PlanTaskOptions } from './plan-task.js';
export { runOwner, type RunOwner } from './run-owner.js';
export { DEFAULT_RUN_LEASE_TTL_MS, RunClaimedError, RunLease, claimRun, type ClaimRunOptions } from './run-lease.js';
export { isHolderAlive, isProcessAlive, leaseHolderOf, readLeaseHolder, type LeaseHolder } from './lease-holder.js';
export { waitForRun, type WaitForRunOptions } from './wait-for-run.js';
export { immediateTransaction } from './immediate-transaction.js';
export { NODE_TRANSITION_EVENT_TYPES, nodeEventDraft } from './node-event.js';
export { nodeStatesFromEvents, type FoldedNodeState } from './node-states.js';
