import type { NodeStatus } from './node-status.js';
import type { Amendment } from './schedule-options.js';
import type { SchedulableNode } from './schedulable-node.js';

const FROZEN: ReadonlySet<NodeStatus> = new Set(['running', 'succeeded']);
const RESTARTABLE: ReadonlySet<NodeStatus> = new Set(['failed', 'cancelled', 'skipped']);

/**
 * What is wrong with applying `amendment` to nodes in `current` states: a running or succeeded
 * node removed or given other dependencies or writes, or a restart of a node that is not
 * failed, cancelled or skipped. Empty when the amendment can apply. Pure.
 */
export function amendmentIssues(
  current: readonly { readonly node: SchedulableNode; readonly status: NodeStatus }[],
  amendment: Amendment,
): string[] {
  const issues: string[] = [];
  const next = new Map(amendment.nodes.map((node) => [node.id, node]));
  const statusOf = new Map(current.map(({ node, status }) => [node.id, status]));
  for (const { node, status } of current) {
    if (!FROZEN.has(status)) continue;
    const replacement = next.get(node.id);
    if (replacement === undefined) issues.push(`node "${node.id}" is ${status} and cannot be removed`);
    else if (!sameSet(node.dependsOn, replacement.dependsOn)) issues.push(`node "${node.id}" is ${status}: its dependencies cannot change`);
    else if (!sameSet(node.writes, replacement.writes)) issues.push(`node "${node.id}" is ${status}: its writes cannot change`);
  }
  for (const id of amendment.restart ?? []) {
    const status = statusOf.get(id);
    if (!next.has(id)) issues.push(`cannot restart "${id}": it is not in the amended nodes`);
    else if (status === undefined) issues.push(`cannot restart "${id}": it is new and starts pending anyway`);
    else if (!RESTARTABLE.has(status)) issues.push(`cannot restart "${id}": it is ${status}, not failed, cancelled or skipped`);
  }
  return issues;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}
