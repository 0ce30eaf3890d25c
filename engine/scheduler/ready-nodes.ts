import type { NodeStatus } from './node-status.js';
import type { SchedulableNode } from './schedulable-node.js';

export interface SkippedNode {
  readonly id: string;
  /** The dependency that can no longer succeed (failed, skipped, cancelled, or itself skipped now). */
  readonly blockedBy: string;
}

export interface ReadyNodesResult {
  /** Pending nodes whose dependencies all succeeded, in input order. */
  readonly ready: readonly string[];
  /** Pending nodes that can never start, transitively, in dependency order. */
  readonly skip: readonly SkippedNode[];
  /** Nothing is ready or running and nothing pending can still start. */
  readonly finished: boolean;
}

const BLOCKING: ReadonlySet<NodeStatus> = new Set(['failed', 'skipped', 'cancelled']);

/**
 * Which pending nodes can start now, which must be skipped because a dependency will never
 * succeed (dependents of a failed node never start), and whether the schedule is finished.
 * A node missing from `status` counts as pending. Pure; O(nodes + edges).
 */
export function readyNodes(nodes: readonly SchedulableNode[], status: ReadonlyMap<string, NodeStatus>): ReadyNodesResult {
  const statusOf = (id: string): NodeStatus => status.get(id) ?? 'pending';
  const blockedBy = new Map<string, string>();
  for (const node of dependencyOrder(nodes)) {
    if (statusOf(node.id) !== 'pending') continue;
    const blocker = node.dependsOn.find((id) => BLOCKING.has(statusOf(id)) || blockedBy.has(id));
    if (blocker !== undefined) blockedBy.set(node.id, blocker);
  }
  const ready: string[] = [];
  let active = false;
  for (const node of nodes) {
    const current = statusOf(node.id);
    if (current === 'ready' || current === 'running') active = true;
    if (current === 'pending' && !blockedBy.has(node.id) && node.dependsOn.every((id) => statusOf(id) === 'succeeded')) ready.push(node.id);
  }
  const skip = [...blockedBy].map(([id, blocker]) => ({ id, blockedBy: blocker }));
  const stuck = nodes.some((node) => statusOf(node.id) === 'pending' && !blockedBy.has(node.id));
  return { ready, skip, finished: !active && ready.length === 0 && !stuck };
}

/** Dependencies before dependents (Kahn); nodes on a cycle or after an unknown id come last. */
function dependencyOrder(nodes: readonly SchedulableNode[]): SchedulableNode[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const unmet = new Map<string, number>();
  const dependents = new Map<string, SchedulableNode[]>();
  for (const node of nodes) {
    const known = node.dependsOn.filter((id) => byId.has(id));
    unmet.set(node.id, known.length);
    for (const id of known) {
      const list = dependents.get(id);
      if (list === undefined) dependents.set(id, [node]);
      else list.push(node);
    }
  }
  const order = nodes.filter((node) => unmet.get(node.id) === 0);
  for (let head = 0; head < order.length; head += 1) {
    for (const dependent of dependents.get(order[head]!.id) ?? []) {
      const left = unmet.get(dependent.id)! - 1;
      unmet.set(dependent.id, left);
      if (left === 0) order.push(dependent);
    }
  }
  if (order.length < nodes.length) {
    const placed = new Set(order);
    for (const node of nodes) if (!placed.has(node)) order.push(node);
  }
  return order;
}
