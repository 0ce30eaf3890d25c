import { criticalPath, type CriticalPathOptions } from './critical-path.js';
import type { LintFinding } from './lint-finding.js';
import type { PlanEstimate } from './plan-estimate.js';
import { planGraph } from './plan-graph.js';
import type { Plan } from './plan-schema.js';
import { planStages, planWidth } from './plan-stages.js';

/** What review shows besides the plan itself (the `show --json` fields of the CLI contract). */
export interface PlanAnalysis {
  readonly stages: readonly (readonly string[])[];
  readonly criticalPath: readonly string[];
  /** The critical path's cost, in the unit of the costs used (estimated tokens). */
  readonly criticalPathCost: number;
  readonly width: number;
  readonly estimate: PlanEstimate | null;
  readonly lint: readonly LintFinding[];
}

export interface AnalyzePlanOptions extends CriticalPathOptions {
  /** When given, the critical path is weighed by its per-node tokens (unless `costOf` is given). */
  readonly estimate?: PlanEstimate;
  readonly lint?: readonly LintFinding[];
}

/** Stages, critical path and width of a valid plan, with its estimate and lint attached. */
export function analyzePlan(plan: Plan, options: AnalyzePlanOptions = {}): PlanAnalysis {
  const graph = planGraph(plan);
  const stages = planStages(plan, graph);
  const estimated = options.estimate === undefined ? undefined : new Map(options.estimate.nodes.map((node) => [node.nodeId, node.tokens]));
  const costOf = options.costOf ?? (estimated === undefined ? undefined : (node: { readonly id: string }) => estimated.get(node.id) ?? 0);
  const path = criticalPath(plan, costOf === undefined ? options : { ...options, costOf }, graph);
  return {
    stages,
    criticalPath: path.nodeIds,
    criticalPathCost: path.cost,
    width: planWidth(stages),
    estimate: options.estimate ?? null,
    lint: options.lint ?? [],
  };
}
