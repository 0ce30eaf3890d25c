import type { PlanNode } from '../../plan/plan-schema.js';
import { isSettledNodeStatus, type NodeStatus } from '../../scheduler/node-status.js';
import type { SessionEvent } from '../../session/event-types.js';
import type { TeamLimits } from './team-limits.js';

/** What the controller does with one `work/delegated`: add its node, answer that it is there already, or refuse it with one line. */
export type DelegationVerdict =
  | { readonly kind: 'add'; readonly node: PlanNode; readonly depth: number }
  | { readonly kind: 'present' }
  | { readonly kind: 'refuse'; readonly reason: string };

export interface DelegationState {
  readonly nodes: readonly PlanNode[];
  readonly statuses: ReadonlyMap<string, NodeStatus>;
  /** Each delegated node and the node that delegated it, from the log. */
  readonly delegatedBy: ReadonlyMap<string, string>;
  readonly limits: TeamLimits;
}

/** How deep `nodeId` sits: 0 for a node nobody delegated (the lead), else one more than its delegator. */
export function delegationDepth(nodeId: string, delegatedBy: ReadonlyMap<string, string>): number {
  let depth = 0;
  for (let current = delegatedBy.get(nodeId); current !== undefined && depth <= delegatedBy.size; current = delegatedBy.get(current)) depth += 1;
  return depth;
}

/**
 * The verdict on one delegation, pure: the limits (`team.maxDepth`, `team.maxNodes`,
 * `team.maxWidth`), then the id and the dependencies; a delegated node never waits for its
 * delegator (it would wait for ever), only for nodes delegated before it. The plan checks
 * (schema, write conflicts) come after, on the amended plan.
 */
export function delegationVerdict(event: SessionEvent<'work/delegated'>, state: DelegationState): DelegationVerdict {
  const delegator = event.nodeId;
  const { id, dependsOn } = event.payload;
  const { limits, delegatedBy } = state;
  if (delegator === null) return { kind: 'refuse', reason: 'only a node of the run may delegate' };
  if (state.nodes.some((node) => node.id === id)) {
    return delegatedBy.get(id) === delegator ? { kind: 'present' } : { kind: 'refuse', reason: `node "${id}" is already in the plan: pick another id` };
  }
  const depth = delegationDepth(delegator, delegatedBy) + 1;
  if (depth > limits.maxDepth) return { kind: 'refuse', reason: `refused by team.maxDepth (${limits.maxDepth}): node "${delegator}" was itself delegated, so it may not delegate; raise team.maxDepth in the config to allow it` };
  if (delegatedBy.size >= limits.maxNodes) return { kind: 'refuse', reason: `refused by team.maxNodes (${limits.maxNodes}): this run already has ${delegatedBy.size} delegated nodes; finish with them, or raise team.maxNodes in the config` };
  const open = [...delegatedBy.keys()].filter((nodeId) => !isSettledNodeStatus(state.statuses.get(nodeId) ?? 'pending'));
  if (open.length >= limits.maxWidth) return { kind: 'refuse', reason: `refused by team.maxWidth (${limits.maxWidth}): ${open.length} delegated nodes have not ended (${open.join(', ')}); await_nodes some of them first, or raise team.maxWidth in the config` };
  const stranger = dependsOn.find((dependency) => !delegatedBy.has(dependency));
  if (stranger !== undefined) return { kind: 'refuse', reason: `dependsOn "${stranger}": a delegated node may depend only on nodes delegated before it` };
  const { kind, title, instructions, reads, writes } = event.payload;
  return { kind: 'add', depth, node: { id, kind, title, instructions, reads: [...reads], writes: [...writes], dependsOn: [...dependsOn] } };
}
