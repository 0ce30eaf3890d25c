/**
 * The engine's public face: what cli/, tools/, planners/, dashboard/, bench/ and examples/ use, by name.
 * Tests import the engine's internals by path. A name goes here when code outside engine/ needs it;
 * each comes straight from the file that declares it, so a command loads only the modules it uses.
 * (eslint.config.js lists the engine's public faces; other top-level folders import nothing else.)
 */

// Errors, canonical JSON, reading a file beside the module, secret redaction.
export { ConfigError, DagentError, DatabaseError, StoredEventError, errorMessage } from './errors.js';
export { readBeside } from './read-beside.js';
export { visibleJson, visibleText } from './visible-text.js';
export { toolResultGist, wrapExternalContent } from './external-content.js';
export { createSecretRedactor, MAX_REDACTED_CHARS, OversizedValueError, secretsFromConfig, secretsFromEnvironment, type SecretRedactor } from './secret-redactor.js';

// Database: open a store (SQLite or PostgreSQL) and its row types.
export type { Database } from './db/database.js';
export { describeSqliteError, openDatabase, type OpenDatabaseOptions, type SqliteSynchronous, type Store } from './db/open-database.js';
export type { BusyNotice } from './db/busy-backoff.js';

// Settings: the config file schema, where settings come from, workspace trust.
export type { DagentConfig } from './config/config-schema.js';
export { readConfigFile, resolveConfig, WORKSPACE_CONFIG_FILE } from './config/resolve-config.js';
export { configHash, trustWorkspace } from './config/workspace-trust.js';
export { userMemoryDatabasePath } from './config/user-config.js';
export { lintOptions } from './config/lint-options.js';

// Session log: event types, appending and reading the log, following a run.
export { EventLog, readEvents, type EventQuery } from './session/event-log.js';
export { EVENT_TYPES, EVENT_VERSIONS, isEventType, type EventDraft, type EventType, type SessionEvent } from './session/event-types.js';
export { MEMORY_KINDS, MEMORY_SCOPES } from './session/event-values.js';
export { followRun, type FollowedStore, type RunFollower } from './session/follow-run.js';
export { RunLogs, runLog, runLogs } from './session/run-log.js';
export { Session } from './session/session.js';
export { DEFAULT_TOOL_CONTENT_TYPE, DEFAULT_TOOL_PROVIDER, withUniformToolMeta, type UniformToolMeta } from './session/tool-result-meta.js';

// Models: the provider interface, providers by name, prices and token estimates.
export { anthropicRequestBody } from './model/anthropic-request.js';
export { callModel, type CallModelOptions } from './model/call-model.js';
export { costOf } from './model/cost-of.js';
export { createProvider, type ConfiguredProvider } from './model/create-provider.js';
export { environmentModelFailure } from './model/model-errors.js';
export type { ImageAttachment, ModelMessage } from './model/model-message.js';
export { DEFAULT_IMAGE_MODELS, type ImageModelTable } from './model/image-capability.js';
export { DEFAULT_IMAGE_MAX_BYTES, ImageReferenceError, attachImages, findImageReferences, formatMegabytes, type ImageSource, type ImageSupport } from './context/image-references.js';
export type { ModelParameters, ModelProvider, ModelRequest, StreamPart, ToolSpec, Usage } from './model/model-provider.js';
export { PrefixCache } from './model/prefix-cache.js';
export { DEFAULT_PRICE_TABLE, mergePriceTable, priceOf, type PriceTable } from './model/price-table.js';
export { PROVIDERS } from './model/provider-catalog.js';
export { messageText, requestParts, requestText } from './model/request-text.js';
export { createScriptedProvider } from './model/scripted-provider.js';
export { requestTokens } from './model/request-tokens.js';
export { estimateTextTokens, loadTokenizer } from './model/token-estimate.js';

// Context: the system prompt and the request a model received.
export { RequestNotFoundError, reconstructRequest, type InspectedHook, type InspectedMessage, type ReconstructedRequest } from './context/reconstruct-request.js';
export type { StepPosition } from './context/runtime-context.js';
export { SystemPrompt, type ContextProvider, type PromptSection } from './context/system-prompt.js';

// Agent: the ReAct loop and the tool runtime and approval interfaces it calls.
export type { AgentCompactor } from './agent/agent-compactor.js';
export type { EndReason } from './agent/end-reason.js';
export type { ModelCallGate } from './agent/model-call-gate.js';
export { runAgent } from './agent/run-agent.js';
export type { AgentLimits } from './agent/stop-conditions.js';
export type {
  ApprovalAnswer,
  ApprovalPolicy,
  ApprovalRequest,
  Approver,
  ToolCallRequest,
  ToolExecutionContext,
  ToolOutcome,
  ToolResult,
  ToolResultMeta,
  ToolRuntime,
  WriteScope,
  ClaimFence,
} from './agent/tool-runtime.js';

// Hooks: the runner interface `tools/` implements, and the pure rules of matching and effects.
export { BLOCKING_HOOK_EVENTS, NO_HOOK_VERDICT, hookEffect, hookMatches, hookOutcome, type HookEventName, type HookInput, type HookOutcome, type HookRecord, type HookRunner, type HookSettings, type HookSpec, type HookVerdict } from './hooks/index.js';
export { HOOK_EVENT_NAMES } from './session/event-values.js';

// Compaction: the compactor the CLI wires, and the pieces the compaction benchmark drives.
export { compactSession } from './compaction/compact-session.js';
export type { CompactionResult } from './compaction/compaction-result.js';
export { createCompactor } from './compaction/compactor.js';
export { planPrune } from './compaction/prune.js';
export { compactableSpan, selectRange } from './compaction/select-range.js';
export type { Summarizer } from './compaction/summarizer.js';
export { extractSurvivalFacts } from './compaction/survival-check.js';
export { groupTurns } from './compaction/turns.js';

// Memory: long-term memories and project memory files.
export { STOP_WORDS } from './memory/keywords.js';
export { MemoryStore } from './memory/memory-store.js';
export { MemoryIdError, ScopedMemoryStore, type MemoryBank } from './memory/scoped-memory-store.js';
export type { Memory, MemoryKind, MemoryScope, MemorySource } from './memory/memory.js';
export { loadProjectMemory, PROJECT_MEMORY_SECTION_ORDER, projectMemorySection } from './memory/project-memory.js';
export { formatMemory, recallMemories } from './memory/recall-memories.js';
export { addMemory, rememberArgsSchema, rememberFromTool } from './memory/remember.js';
export { extractKeyFacts, type KeyFact, type KeyFactOrigin, type KeyFactSink } from './compaction/key-facts.js';

// Plans: the plan schema, checks, stages, estimates and diffs.
export { checkPlan } from './plan/check-plan.js';
export { PLANNER_NODE_ID, reservedIdIssues } from './plan/validate-plan.js';
export { ISOLATED_PLAN_RULES, SHARED_PLAN_RULES, type PlanRules } from './plan/plan-rules.js';
export { lenientPlan } from './plan/lenient-plan.js';
export { checkPlanDocument, parsePlanDocument } from './plan/parse-plan-document.js';
export { analyzePlan, type PlanAnalysis } from './plan/plan-analysis.js';
export { LINT_LEVELS, lintFindingSchema, type LintFinding, type LintLevel } from './plan/lint-finding.js';
export { PlanLintBlockedError, lintGateVerdict, type LintGateAllowances, type LintGateVerdict } from './plan/lint-gate.js';
export { isEmptyPlanDiff } from './plan/plan-diff.js';
export { PlanInvalidError } from './plan/plan-errors.js';
export { estimatePlan, estimatedNodeTokens, type NodeEstimate, type NodeModelChoice, type PlanEstimate } from './plan/plan-estimate.js';
export { planEdges } from './plan/plan-graph.js';
export { formatPlanIssues, type PlanIssue } from './plan/plan-issue.js';
export { NODE_KINDS, assertNever, isEditingNode, nodeKind, nodeSubject, type NodeKindTools, type NodeKindTraits } from './plan/node-kinds.js';
export { PLAN_NODE_KINDS, planNodeSchema, planSchema, type Plan, type PlanNode, type PlanNodeKind } from './plan/plan-schema.js';
export { planStages } from './plan/plan-stages.js';
export type { PlanStatus } from './plan/plan-status.js';
export { renderPlanDiff } from './plan/render-plan-diff.js';

// Scheduler: the scheduling loop, its modes and node shapes (the scheduler benchmark drives it).
export type { NodeTransition } from './scheduler/node-transition.js';
export type { SchedulableNode } from './scheduler/schedulable-node.js';
export type { ScheduleMode } from './scheduler/schedule-options.js';
export { runSchedule } from './scheduler/scheduler.js';

// Runs: the run store, plans of a run, planning, running, the folded run view.
export { applyPlanPatch } from './run/orchestration/apply-plan-patch.js';
export { isProcessAlive, processStartTime } from './process-state.js';
export { NO_TERMINAL_DENIAL } from './run/orchestration/node-outcome.js';
export type { NodeFiles } from './run/orchestration/node-files.js';
export { endRun } from './run/storage/end-run.js';
export { DEFAULT_ROLES, executePlanNode, warmNodePrompts, type NodeRuntime, type ResolvedModel } from './run/orchestration/execute-plan-node.js';
export { nodeModels, type ModelRouting, type NodeModels } from './run/orchestration/node-models.js';
export { executeReactRun } from './run/orchestration/execute-react-run.js';
export { appendNodeTransitions } from './run/storage/node-projection.js';
export { planChangeSummary } from './run/views/plan-change-summary.js';
export { DEFAULT_TEAM_LIMITS, TEAM_TOOL_NAMES, type TeamLimits } from './run/team/team-limits.js';
export { LEAD_INSTRUCTIONS, LEAD_NODE_ID, teamLeadPlan } from './run/team/lead-plan.js';
export { awaitDelegation, awaitNodes, type NodeEnding } from './run/team/team-waits.js';
export { delegationVerdict, type DelegationVerdict } from './run/team/delegation-verdict.js';
export { delegatedBy } from './run/team/delegations.js';
export type { PlanLinter } from './plan/plan-linter.js';
export { PLAN_LINT_EVENT_TYPES, approvalAllowances, recordedLint } from './run/views/plan-lint-record.js';
export { approvePlan, currentPlan, assertRunHasNode, planVersion, rejectPlan, savePlan, type StoredPlan } from './run/storage/plan-store.js';
export { planTask } from './run/orchestration/plan-task.js';
export type { AmendInput, CompletedNode, PlanInput, Planner, PlanPatch, ReplanTrigger } from './plan/planner.js';
export { executeRun } from './run/orchestration/run-controller.js';
export { prepareRerun, type PreparedRerun } from './run/rerun/rerun-from.js';
export { DEFAULT_RUN_SETTINGS, type RemoteAttempts, type RunFleet, type RunPause, type RunResult, type RunSettings } from './run/orchestration/run-options.js';
export { claimRun, RunClaimedError, type RunLease } from './run/ownership/run-lease.js';
export { deadRunOwner, needsLivingProcess, runOwner, type RunOwner } from './run/ownership/run-owner.js';
export { RunNotRunningError, cancelRun, requestCancel, type CancelOutcome } from './run/ownership/cancel-run.js';
export { RECOVERED_AFTER_CRASH, recoverStoppedRunFiles } from './run/ownership/recover-stopped-files.js';
export { NodeNotPausedError, NodeNotRunningError, pauseNode, resumeNodes, tellNode, type SteeringReceipt } from './run/ownership/steer-node.js';
export { isTerminalRunStatus, type RunStatus } from './run/storage/run-status.js';
export { countRunsByMode, createRun, getRun, listRuns, type RunRecord, type RunSelection } from './run/storage/run-store.js';
export {
  emptyRunView,
  foldRunView,
  reduceRunView,
  RUN_VIEW_EVENT_TYPES,
  NODE_WORKSPACE_FOLD_TYPES,
  foldNodeWorkspace,
  nodeWorkspaceLabel,
  nodeWorkspaceLine,
  nodeRevertedLabel,
  revertedState,
  revertedStateLabel,
  shortCommit,
  type NodePause,
  type NodeWorkspaceState,
  type NodeWorkspaceView,
  type NodeView,
  type NodeViewStatus,
  type PendingApproval,
  type RevertedState,
  type RunView,
  type SavedWork,
} from './run/views/run-view.js';
export { waitForRun } from './run/ownership/wait-for-run.js';
export { capBelowSpend, effectiveBudget, formatBudgetUsd, hasCaps, type RunBudget } from './run/budget/run-budget.js';
export { budgetWayOn } from './run/budget/budget-way-on.js';
export { suggestedCaps, type BudgetOutlook } from './run/budget/suggested-caps.js';
export { budgetOutlook, pausedBudgetWayOn } from './run/views/budget-outlook.js';
export { recordedBudget } from './run/budget/recorded-budget.js';
export { budgetUse, budgetUseJson, budgetUseText, nodeBudgetUse, type BudgetUse } from './run/views/budget-use.js';

// Snapshots: per-node file snapshots, diff and revert.
export { renderFileDiff, type FileDiff, type RunDiff } from './snapshots/file-diff-render.js';
export { diffRun } from './snapshots/file-diff.js';
export { revertRun, type RevertAction, type RevertConflict, type RevertOutcome, type RevertRemedy } from './snapshots/file-revert.js';
export { NothingToDiffError } from './snapshots/file-snapshot-errors.js';
export { startGitSpawner } from './snapshots/git-spawner.js';
export { CONTROLLED_GIT_CONFIG, controlledGitEnvironment } from './snapshots/git-environment.js';
export { FileSnapshots } from './snapshots/file-snapshots.js';
export type { RecoveredNodeChange } from './snapshots/file-scan-recovery.js';
export { DAGENT_TEMP_FILE_GLOB, isDagentTempFile } from './snapshots/temp-file-name.js';

// Node workspaces: a git worktree per node, its change committed and merged onto the run branch.
export {
  NodeWorkspace,
  RunWorkspaces,
  WorktreeNodeFiles,
  chooseIsolation,
  conflictHunks,
  describeConflicts,
  describeIsolation,
  linkedFolderTargets,
  runBranch,
  worktreeGitDir,
  type IsolationChoice,
  type IsolationSetting,
  type MergeConflict,
  type MergeOutcome,
  type NodeCommit,
} from './workspace/index.js';

// Scale-out: the job queue, node workers and clone workspaces.
export { applyNodePatch, applyPatchOfNode, CloneWorkspace, git, type NodePatch, type PatchApplier, type PatchedNodeFiles } from './dispatch/clone-workspace.js';
export { DispatchedAttempts, outcomeOf } from './dispatch/dispatched-attempts.js';
export type { RunWorkspace } from './dispatch/execute-node-job.js';
export { createGraphileJobQueue, runQueueTasks } from './dispatch/graphile-job-queue.js';
export { startNodeWorker, warmWorkerFirstUses } from './dispatch/node-worker.js';
