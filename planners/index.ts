export * from './repo-scan/index.js';
export { isGlobPattern, matchFiles, normalizePlanPath, patternCovers } from './plan-lint-files.js';
export { planReachability, type PlanReachability } from './plan-lint-graph.js';
export { LINT_CODES, lintPlan, type LintablePlan, type LintCode, type LintIssue, type LintLevel, type LintOptions, type LintPlanNode } from './plan-lint.js';
export { isEditingNode } from './plan-lint-rules.js';
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
