/**
 * Runs, by idea: storage/ (the run and plan rows, the node projection, ending a run), ownership/
 * (leases, the run's owner, waiting on and cancelling a run), views/ (pure folds of the log: the
 * run view, node states, reported work), orchestration/ (the run controller, planning a task, a
 * node's attempt). Arrows point down that list: orchestration → views/ownership → storage.
 * The Planner and PlanLinter interfaces live beside the plan, in engine/plan.
 */
export { IllegalRunTransitionError, RUN_STATUSES, isRunStatus, isTerminalRunStatus, transitionRun, type RunStatus } from './storage/run-status.js';
export { countRunsByMode, createRun, getRun, listRuns, runFromRow, type RunSelection, type CreateRunInput, type RunMode, type RunRecord } from './storage/run-store.js';
export {
  RUN_VIEW_EVENT_TYPES,
  emptyRunView,
  foldRunView,
  reduceRunView,
  NODE_WORKSPACE_FOLD_TYPES,
  foldNodeWorkspace,
  nodeWorkspaceLabel,
  nodeWorkspaceLine,
  shortCommit,
  type CompactionView,
  type NodeWorkspaceState,
  type NodeWorkspaceView,
  type NodePause,
  type NodeView,
  type NodeViewStatus,
  type PendingApproval,
  type PlanChangeView,
  type ReplanView,
  type ReportedWork,
  type RunView,
  type TokenTotals,
} from './views/run-view.js';
export { planChangeSummary } from './views/plan-change-summary.js';
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
} from './storage/plan-store.js';
export { applyPlanPatch, missedWorkNode, type PatchContext } from './orchestration/apply-plan-patch.js';
export { stopEarlierCommands } from './orchestration/earlier-commands.js';
export { NO_TERMINAL_DENIAL, unkeptPromise, type NodeAction, type NodeOutcomeInput, type UnkeptPromise } from './orchestration/node-outcome.js';
export { commandFailure } from './orchestration/command-failure.js';
export { DEFAULT_ROLES, executePlanNode, type NodeAttempt, type NodeAttemptResult, type NodeRuntime, type ResolvedModel, type RolePrompt } from './orchestration/execute-plan-node.js';
export type { NodeFiles } from './orchestration/node-files.js';
export { NODE_SYSTEM_SECTIONS, handoffMessage, nodeInstruction } from './orchestration/node-prompt.js';
export { executeRun } from './orchestration/run-controller.js';
export { prepareRerun, rerunSet, withRerunInstruction, type PreparedRerun, type RerunInput } from './rerun/rerun-from.js';
export { DEFAULT_RUN_SETTINGS, type ExecuteRunOptions, type NodeResult, type RemoteAttempts, type RunFleet, type RunResult, type RunSettings } from './orchestration/run-options.js';
export { changedCommandNodes, replanVerdict, reviewAfterReplan, type ReplanVerdict } from './orchestration/replan-verdict.js';
export { attemptNode, type NodeAttemptContext } from './orchestration/node-attempt.js';
export { runOutcome } from './orchestration/run-outcome.js';
export { TransitionStore } from './orchestration/transition-store.js';
export { RECOVERED_EVENT_TYPES, RUN_MEMORY_EVENT_TYPES, RunMemory, recoverRun, type RecoveredRun } from './views/run-recovery.js';
export { reportedWork } from './views/reported-work.js';
export { appendNodeTransitions, nodeTransitionDrafts, writeNodeProjection, type DescribedResult, type NodeTotals, type ProjectionContext } from './storage/node-projection.js';
export { endRun, type RunEnding } from './storage/end-run.js';
export { REACT_NODE_ID, REACT_SYSTEM_SECTIONS, executeReactRun, type ExecuteReactRunOptions } from './orchestration/execute-react-run.js';
export { planTask, type PlanTaskOptions } from './orchestration/plan-task.js';
export { deadRunOwner, needsLivingProcess, runOwner, type RunOwner } from './ownership/run-owner.js';
export { DEFAULT_RUN_LEASE_TTL_MS, RunClaimedError, RunLease, claimRun, type ClaimRunOptions } from './ownership/run-lease.js';
export { isHolderAlive, leaseHolderOf, readLeaseHolder, type LeaseHolder } from './ownership/lease-holder.js';
export { waitForRun, type WaitForRunOptions } from './ownership/wait-for-run.js';
export { RECOVERED_AFTER_CRASH, recoverStoppedRunFiles } from './ownership/recover-stopped-files.js';
export { NodeNotPausedError, NodeNotRunningError, pauseNode, resumeNodes, tellNode, type SteeringReceipt } from './ownership/steer-node.js';
export { immediateTransaction } from './storage/immediate-transaction.js';
export { NODE_TRANSITION_EVENT_TYPES, nodeEventDraft } from './storage/node-event.js';
export { nodeStatesFromEvents, type FoldedNodeState } from './views/node-states.js';
