import { planGraph, type PlanGraph } from './plan-graph.js';
import { NODE_KINDS } from './node-kinds.js';
import { PLAN_NODE_KINDS, type Plan, type PlanNode, type PlanNodeKind } from './plan-schema.js';
import { planStages } from './plan-stages.js';

/**
 * Costs (in estimated tokens) of a node without its own `estimate`. A command node runs no model
 * but takes time, so it costs something too.
 */
export const DEFAULT_NODE_COST_TOKENS: Readonly<Record<PlanNodeKind, number>> = Object.fromEntries(
  PLAN_NODE_KINDS.map((kind) => [kind, NODE_KINDS[kind].defaultCostTokens]),
) as Record<PlanNodeKind, number>;

/** A node's planned cost: its own `estimate`, else the default cost of its kind (in estimated tokens). */
export function plannedCost(node: Pick<PlanNode, 'kind' | 'estimate'>, defaultCosts: Readonly<Record<PlanNodeKind, number>> = DEFAULT_NODE_COST_TOKENS): number {
  return node.estimate ?? defaultCosts[node.kind];
}

export interface CriticalPathOptions {
  /** The cost of a node; default: its `estimate`, else `defaultCosts` for its kind. */
  readonly costOf?: (node: PlanNode) => number;
  readonly defaultCosts?: Partial<Readonly<Record<PlanNodeKind, number>>>;
}

export interface CriticalPath {
  /** Node ids from a node without dependencies to the end of the path. */
  readonly nodeIds: readonly string[];
  /** The sum of the path's node costs: no path costs more. */
  readonly cost: number;
}

/**
 * The most expensive chain of dependencies: the bound on a run's duration however wide it runs.
 * Ties go to the earlier dependency in the document, and at the end to the later node, so a
 * zero-cost final node (a test command without an estimate) stays on the path.
 * Throws `GraphCycleError` on a cycle.
 */
export function criticalPath(plan: Plan, options: CriticalPathOptions = {}, graph: PlanGraph = planGraph(plan)): CriticalPath {
  const costs = { ...DEFAULT_NODE_COST_TOKENS, ...options.defaultCosts };
  const costOf = options.costOf ?? ((node: PlanNode) => plannedCost(node, costs));
  const total = new Map<string, number>();
  const previous = new Map<string, string>();
  const order = planStages(plan, graph).flat();
  const costlier = (a: string, b: string): boolean => total.get(a)! > total.get(b)! || (total.get(a) === total.get(b) && index(graph, a) < index(graph, b));
  for (const id of order) {
    let best: string | undefined;
    for (const dependency of graph.inNeighbors(id)) if (best === undefined || costlier(dependency, best)) best = dependency;
    if (best !== undefined) previous.set(id, best);
    total.set(id, (best === undefined ? 0 : total.get(best)!) + costOf(graph.getNodeAttribute(id, 'node')));
  }
  let end: string | undefined;
  for (const id of order) if (end === undefined || total.get(id)! >= total.get(end)!) end = id;
  if (end === undefined) return { nodeIds: [], cost: 0 };
  const nodeIds = [end];
  for (let id = previous.get(end); id !== undefined; id = previous.get(id)) nodeIds.unshift(id);
  return { nodeIds, cost: total.get(end)! };
}

function index(graph: PlanGraph, id: string): number {
  return graph.getNodeAttribute(id, 'index');
}
