import { parsePlan } from './check-plan.js';
import { PlanInvalidError } from './plan-errors.js';
import { createReachability } from './reachability.js';
import type { PlanRules } from './plan-rules.js';
import type { Plan, PlanNode } from './plan-schema.js';

export interface AppendAndRewire {
  /** Nodes for the missed work (ids new to the plan). */
  readonly newNodes: readonly PlanNode[];
  /** The node that failed, or that reported the missed work. */
  readonly affectedNodeId: string;
  /** Nodes that already succeeded: never changed. */
  readonly completedNodeIds: Iterable<string>;
  /** The rules the amended plan is checked by (the run's isolation). */
  readonly rules?: PlanRules | undefined;
}

export interface PlanAmendment {
  readonly plan: Plan;
  readonly addedNodeIds: readonly string[];
  /** Pending nodes that now also wait for the new nodes. */
  readonly rewiredNodeIds: readonly string[];
}

/**
 * The append-and-rewire patch of the replanning rules (SPEC §2.5): append the new nodes, and make
 * every pending node that waited for the affected node wait for the new nodes too (for the new
 * nodes nothing else waits on, which is enough). A pending node that waited on a completed
 * descendant of the affected node is rewired as well, since the completed one cannot be. The
 * result is checked like any plan; throws `PlanInvalidError` (with the issues) when it is not valid.
 */
export function amendPlan(plan: Plan, patch: AppendAndRewire): PlanAmendment {
  const { newNodes, affectedNodeId } = patch;
  if (!plan.nodes.some((node) => node.id === affectedNodeId))
    throw new PlanInvalidError([{ code: 'unknown-node', nodeId: affectedNodeId, message: `amend: the plan has no node "${affectedNodeId}"` }]);
  const completed = new Set(patch.completedNodeIds);
  const descendants = createReachability(plan).descendants(affectedNodeId);
  const waitedOn = new Set([affectedNodeId, ...[...descendants].filter((id) => completed.has(id))]);
  const newIds = newNodes.map((node) => node.id);
  const dependedOnByNew = new Set(newNodes.flatMap((node) => node.dependsOn));
  const newSinks = newIds.filter((id) => !dependedOnByNew.has(id));
  const rewiredNodeIds: string[] = [];
  const nodes = plan.nodes.map((node) => {
    if (completed.has(node.id) || node.id === affectedNodeId || !node.dependsOn.some((id) => waitedOn.has(id))) return node;
    const added = newSinks.filter((id) => !node.dependsOn.includes(id));
    if (added.length === 0) return node;
    rewiredNodeIds.push(node.id);
    return { ...node, dependsOn: [...node.dependsOn, ...added] };
  });
  const next = parsePlan({ ...plan, nodes: [...nodes, ...newNodes] }, { source: 'amended plan', rules: patch.rules });
  return { plan: next, addedNodeIds: newIds, rewiredNodeIds };
}
