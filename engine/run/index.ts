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
