export { IllegalRunTransitionError, RUN_STATUSES, isRunStatus, isTerminalRunStatus, transitionRun, type RunStatus } from './run-status.js';
export { createRun, getRun, listRuns, runFromRow, type CreateRunInput, type RunMode, type RunRecord } from './run-store.js';
