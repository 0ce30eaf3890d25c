/**
 * The engine's read-only face: what the commands that only look at a run (`status`, `log`, `show`)
 * need — the store, the settings, runs, plans and the session log. It leaves out the scheduler,
 * the model clients, the agents and the job queues, so those commands start without loading them.
 * Most of it is also exported by engine/index.ts; `AmbiguousRunError` and `UnknownRunError` are
 * exported only here, as nothing outside the engine but these commands uses them.
 */
export { AmbiguousRunError, ConfigError, DagentError, UnknownRunError, errorMessage } from './errors.js';
export { visibleJson, visibleText } from './visible-text.js';
export { toolResultGist } from './external-content.js';
export { openDatabase, describeSqliteError, type Store } from './db/open-database.js';
export type { BusyNotice } from './db/busy-backoff.js';
export { resolveConfig, WORKSPACE_CONFIG_FILE } from './config/resolve-config.js';
export type { DagentConfig } from './config/config-schema.js';
export { lintOptions } from './config/lint-options.js';
export { secretsFromConfig, secretsFromEnvironment } from './secret-redactor.js';
export { EVENT_TYPES, isEventType, type EventType, type SessionEvent } from './session/event-types.js';
export { readEvents } from './session/event-log.js';
export { countRunsByMode, getRun, listRuns, type RunRecord } from './run/storage/run-store.js';
export { NODE_WORKSPACE_FOLD_TYPES, REVERTS_FOLD_TYPES, foldNodeWorkspace, foldReverts, foldRunView, isNodeReverted, nodeRevertedLabel, revertedState, revertedStateLabel, type RevertedState, type RevertRecord, type RevertsView, nodeWorkspaceLabel, nodeWorkspaceLine, RUN_VIEW_EVENT_TYPES, shortCommit, type NodeView, type NodeWorkspaceView, type RunView } from './run/views/run-view.js';
export { formatBudgetUsd, type RunBudget } from './run/budget/run-budget.js';
export { pausedBudgetWayOn } from './run/views/budget-outlook.js';
export { budgetUse, budgetUseJson, budgetUseText, nodeBudgetUse, type BudgetUse } from './run/views/budget-use.js';
export { deadRunOwner, needsLivingProcess, runOwner, type RunOwner } from './run/ownership/run-owner.js';
export { currentPlan, assertRunHasNode, planVersion } from './run/storage/plan-store.js';
export { PLAN_LINT_EVENT_TYPES, approvalAllowances, recordedLint } from './run/views/plan-lint-record.js';
export type { Plan } from './plan/plan-schema.js';
export { PlanLintBlockedError, lintGateVerdict } from './plan/lint-gate.js';
export { analyzePlan, type PlanAnalysis } from './plan/plan-analysis.js';
export { estimatePlan, type NodeModelChoice, type PlanEstimate } from './plan/plan-estimate.js';
export { planEdges } from './plan/plan-graph.js';
export { planStages } from './plan/plan-stages.js';
export { DEFAULT_PRICE_TABLE, mergePriceTable, priceOf, type PriceTable } from './model/price-table.js';
export { environmentModelFailure } from './model/model-errors.js';
export { renderFileDiff } from './snapshots/file-diff-render.js';
export { chooseIsolation, describeIsolation, type IsolationChoice } from './workspace/isolation.js';
export { isTerminalRunStatus } from './run/storage/run-status.js';
