/** Plans as data: the document schema, the graph, validation, derivations, versions and amendments. */
export { NODE_ID_PATTERN, PLAN_NODE_KINDS, planNodeSchema, planSchema, workspacePathProblem, type Plan, type PlanNode, type PlanNodeKind } from './plan-schema.js';
export { NODE_KINDS, assertNever, isEditingNode, nodeKind, nodeSubject, type NodeKindRendering, type NodeKindTools, type NodeKindTraits, type NodeKindWrites, type NodeSubject } from './node-kinds.js';
export { formatPlanIssues, type PlanIssue, type PlanIssueCode } from './plan-issue.js';
export { GraphCycleError, PlanInvalidError } from './plan-errors.js';
export { checkPlan, parsePlan, type PlanCheck } from './check-plan.js';
export { ISOLATED_PLAN_RULES, SHARED_PLAN_RULES, type PlanRules } from './plan-rules.js';
export { lenientPlan } from './lenient-plan.js';
export { checkPlanDocument, parsePlanDocument, type PlanDocumentFormat, type PlanDocumentOptions } from './parse-plan-document.js';
export { nodesById, planEdges, planGraph, type PlanEdge, type PlanGraph, type PlanNodeAttributes } from './plan-graph.js';
export { findCycles } from './find-cycles.js';
export { createReachability, type Reachability } from './reachability.js';
export { isGlobPattern, literalPrefix, literalSuffix, writesOverlap, type WriteOverlap } from './writes-overlap.js';
export { PLANNER_NODE_ID, assertValidPlan, reservedIdIssues, validatePlan } from './validate-plan.js';
export { planStages, planWidth } from './plan-stages.js';
export { DEFAULT_NODE_COST_TOKENS, criticalPath, plannedCost, type CriticalPath, type CriticalPathOptions } from './critical-path.js';
export { diffPlans, isEmptyPlanDiff, type FieldChange, type PlanDiff, type PlanField, type PlanNodeField } from './plan-diff.js';
export { MAX_DIFF_VALUE_CHARS, renderPlanDiff } from './render-plan-diff.js';
export { planHash } from './plan-hash.js';
export { IllegalPlanTransitionError, PLAN_STATUSES, isFinalPlanStatus, isPlanStatus, transitionPlan, type PlanStatus } from './plan-status.js';
export {
  BYTES_PER_TOKEN,
  NODE_ANSWER_TOKENS,
  NODE_OVERHEAD_TOKENS,
  estimatePlan,
  estimatedNodeTokens,
  type NodeEstimate,
  type PlanEstimate,
  type PlanEstimateOptions,
  type PriceFunction,
} from './plan-estimate.js';
export { analyzePlan, type AnalyzePlanOptions, type PlanAnalysis } from './plan-analysis.js';
export { LINT_LEVELS, lintFindingSchema, type LintFinding, type LintLevel } from './lint-finding.js';
export { amendPlan, type AppendAndRewire, type PlanAmendment } from './amend-plan.js';
export { MAX_REPLANS, REPLAN_PROGRESS_THRESHOLD, replanDecision, type ReplanDecision, type ReplanInput } from './replan-decision.js';
export type { AmendInput, CompletedNode, PlanInput, PlanPatch, Planner, ReplanTrigger } from './planner.js';
export type { PlanLinter } from './plan-linter.js';
