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
  type ReplanView,
  type RunView,
  type TokenTotals,
} from './run-view.js';
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
export { DEFAULT_ROLES, executePlanNode, type NodeAttempt, type NodeAttemptResult, type NodeRuntime, type ResolvedModel, type RolePrompt } from './execute-plan-node.js';
export type { NodeFiles } from './node-files.js';
export { NODE_SYSTEM_SECTIONS, handoffMessage, nodeInstruction } from './node-prompt.js';
export type { AmendInput, CompletedNode, PlanInput, PlanPatch, Planner, ReplanTrigger } from './planner.js';
export { DEFAULT_RUN_SETTINGS, executeRun, type ExecuteRunOptions, type NodeResult, type RunResult, type RunSettings } from './run-controller.js';
export { FileSnapshots, MAX_EAGER_SNAPSHOT_FILE_BYTES, MAX_EAGER_SNAPSHOT_TOTAL_BYTES, type EndNodeOptions, type FileSnapshotsOptions, type NodeEnd, type NodeRestore } from './file-snapshots.js';
export { nodeBoundarySchema, parseNodeBoundary, type NodeBoundary } from './file-node-boundary.js';
export { createWriteSet, writeSetRefusal, type WriteSet } from './file-write-set.js';
export { diffRun, type DiffRunOptions } from './file-diff.js';
export { DIFF_CONTEXT_LINES, fileDiff, renderFileDiff, renderUnifiedDiff, type DiffHunk, type FileChangeKind, type FileDiff, type FileDiffContent, type RunDiff } from './file-diff-render.js';
export { revertRun, type RevertAction, type RevertConflict, type RevertOutcome, type RevertRunOptions, type RevertedFile } from './file-revert.js';
export { revertStep, type RevertStep, type RevertStepInput } from './file-revert-step.js';
export { FileSnapshotGitError, InvalidNodeBoundaryError, NothingToDiffError, UnsafeSnapshotPathError, WorkspaceMissingError } from './file-snapshot-errors.js';
export { ABSENT_FILE_HASH, listSnapshots, type FileSnapshot, type FileSnapshotKey } from './file-snapshot-rows.js';
export { ABSENT_FILE, fileStateOf, type FileState } from './file-state.js';
export { isBinaryContent, type FileContentEncoding } from './file-content.js';
export { GitWorkingTree, type GitRunner } from './file-git.js';
export { appendNodeTransitions, nodeTransitionDrafts, writeNodeProjection, type DescribedResult, type NodeTotals, type ProjectionContext } from './node-projection.js';
export { endRun, type RunEnding } from './end-run.js';
export { REACT_NODE_ID, REACT_SYSTEM_SECTIONS, executeReactRun, type ExecuteReactRunOptions } from './execute-react-run.js';
export { planTask, type PlanTaskOptions } from './plan-task.js';
export { runOwner, type RunOwner } from './run-owner.js';
export { DEFAULT_RUN_LEASE_TTL_MS, RunClaimedError, RunLease, claimRun, type ClaimRunOptions } from './run-lease.js';
export { isProcessAlive, leaseHolderOf, readLeaseHolder, type LeaseHolder } from './lease-holder.js';
export { waitForRun, type WaitForRunOptions } from './wait-for-run.js';
export { immediateTransaction } from './immediate-transaction.js';
