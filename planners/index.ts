export * from './repo-scan/index.js';
export * from './language-service/index.js';
export { isGlobPattern, matchFiles, normalizePlanPath, patternCovers } from './plan-lint-files.js';
export { planReachability, type PlanReachability } from './plan-lint-graph.js';
export { lintPlan, type LintOptions } from './plan-lint.js';
export { DEFAULT_LINT_LEVELS, LINT_CODES, type LintCode } from './lint-codes.js';
export { isEditingNode, type LintablePlan, type LintPlanNode } from './lintable-plan.js';
export {
  extractTaskReferences,
  parseTaskReferences,
  TaskPathOutsideWorkspaceError,
  TaskReferenceError,
  UnknownTaskPathError,
  type ExtractTaskReferencesOptions,
  type TaskReference,
  type TaskReferences,
} from './task-references.js';
export { resolveInsideWorkspace, type ResolveTaskPath, type WorkspacePathCheck } from './task-references-path.js';
export {
  createLlmPlanner,
  DEFAULT_MAX_REPAIRS,
  DEFAULT_PLANNER_MAX_STEPS,
  type LlmPlannerOptions,
  type RepoMapSource,
} from './llm-planner.js';
export { checkAppendAnswer, checkPlanAnswer, checkReplaceAnswer, extractJsonText, PLANNER_NODE_ID, type AmendContext, type AnswerCheck } from './llm-planner-answer.js';
export { PlanningFailedError, type PlannerStop, type PlanningFailure } from './llm-planner-errors.js';
export { PLANNER_TOOL_NAMES, planJsonSchemaText, plannerPromptText, plannerSystemSections, type PlannerSectionsOptions } from './planner-prompt.js';
export { DEFAULT_MAP_TOKEN_BUDGET, MAX_NAMES_PER_FILE, renderRepoMapPrompt, type RepoMapPrompt, type RepoMapPromptOptions } from './repo-map-prompt.js';
export { filesByRelevance, rankFiles, splitIdentifier, taskVocabulary, type TaskVocabulary } from './repo-map-prompt-relevance.js';
export { findSymbolReferences } from './symbol-references.js';
export { lintPlanWithReferences } from './lint-plan-with-references.js';
export { lintForReview, type LintForReviewInput, type ReviewLint } from './lint-for-review.js';
export { listedFilesMap } from './listed-files-map.js';
export { changedSymbols, type ChangedSymbol } from './plan-lint-changes.js';
