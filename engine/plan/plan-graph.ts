import { DirectedGraph } from 'graphology';
import type { Plan, PlanNode } from './plan-schema.js';

export interface PlanNodeAttributes {
  readonly node: PlanNode;
  /** The node's position in the plan document: the tie-breaker wherever order matters. */
  readonly index: number;
}

export type PlanGraph = DirectedGraph<PlanNodeAttributes>;

/** A dependency as an edge: `from` must finish before `to` starts. */
export interface PlanEdge {
  readonly from: string;
  readonly to: string;
}

/**
 * The plan as a graph with an edge dependency → dependent. Tolerant by design, so validation can
 * build it from a broken plan: a repeated id keeps its first node, and unknown dependencies,
 * self-dependencies and repeated dependencies are left out (`validatePlan` reports them).
 */
export function planGraph(plan: Plan): PlanGraph {
  const graph: PlanGraph = new DirectedGraph<PlanNodeAttributes>();
  plan.nodes.forEach((node, index) => {
    if (!graph.hasNode(node.id)) graph.addNode(node.id, { node, index });
  });
  for (const { from, to } of planEdges(plan)) {
    if (graph.hasNode(from) && from !== to) graph.mergeEdge(from, to);
  }
  return graph;
}

/** Every declared dependency as an edge, in document order, without repeats. */
export function planEdges(plan: Plan): readonly PlanEdge[] {
  const seen = new Set<string>();
  const edges: PlanEdge[] = [];
  for (const node of plan.nodes) {
    for (const dependency of node.dependsOn) {
      const key = `${dependency}\u0000${node.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push({ from: dependency, to: node.id });
    }
  }
  return edges;
}

/** The plan's nodes by id (first occurrence wins). */
export function nodesById(plan: Plan): ReadonlyMap<string, PlanNode> {
  const byId = new Map<string, PlanNode>();
  for (const node of plan.nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  return byId;
}
