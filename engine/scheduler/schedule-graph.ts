import type { SchedulableNode } from './schedulable-node.js';
import { ScheduleInputError } from './scheduler-errors.js';

/** A validated node list with its adjacency by position, built once per node list. */
export interface ScheduleGraph {
  readonly nodes: readonly SchedulableNode[];
  readonly indexOf: ReadonlyMap<string, number>;
  /** Positions of each node's dependencies, without duplicates. */
  readonly dependencies: readonly (readonly number[])[];
  /** Positions of the nodes that depend on each node. */
  readonly dependents: readonly (readonly number[])[];
}

/**
 * Indexes `nodes` and checks they form a DAG the scheduler can run. Throws `ScheduleInputError`
 * listing every problem: empty or duplicate ids, unknown or self dependencies, a cycle (named).
 */
export function createScheduleGraph(nodes: readonly SchedulableNode[]): ScheduleGraph {
  const issues: string[] = [];
  const indexOf = new Map<string, number>();
  nodes.forEach((node, index) => {
    if (node.id === '') issues.push(`node #${index + 1} has an empty id`);
    else if (indexOf.has(node.id)) issues.push(`duplicate node id "${node.id}"`);
    else indexOf.set(node.id, index);
  });
  const dependencies: number[][] = nodes.map(() => []);
  const dependents: number[][] = nodes.map(() => []);
  nodes.forEach((node, index) => {
    if (indexOf.get(node.id) !== index) return;
    const seen = new Set<number>();
    for (const dependencyId of node.dependsOn) {
      const dependency = indexOf.get(dependencyId);
      if (dependency === undefined) issues.push(`node "${node.id}" depends on unknown node "${dependencyId}"`);
      else if (dependency === index) issues.push(`node "${node.id}" depends on itself`);
      else if (!seen.has(dependency)) {
        seen.add(dependency);
        dependencies[index]!.push(dependency);
        dependents[dependency]!.push(index);
      }
    }
  });
  if (issues.length === 0) {
    const cycle = findCycle(nodes, dependencies, dependents);
    if (cycle !== undefined) issues.push(`dependency cycle ${cycle.join(' → ')}`);
  }
  if (issues.length > 0) throw new ScheduleInputError(issues);
  return { nodes, indexOf, dependencies, dependents };
}

/** Kahn's algorithm; when nodes remain, walks their dependencies until one repeats. */
function findCycle(
  nodes: readonly SchedulableNode[],
  dependencies: readonly (readonly number[])[],
  dependents: readonly (readonly number[])[],
): string[] | undefined {
  const unmet = dependencies.map((list) => list.length);
  const queue: number[] = [];
  unmet.forEach((count, index) => count === 0 && queue.push(index));
  for (let head = 0; head < queue.length; head += 1) {
    for (const dependent of dependents[queue[head]!]!) if (--unmet[dependent]! === 0) queue.push(dependent);
  }
  if (queue.length === nodes.length) return undefined;
  let current = unmet.findIndex((count) => count > 0);
  const visitedAt = new Map<number, number>();
  const path: number[] = [];
  while (!visitedAt.has(current)) {
    visitedAt.set(current, path.length);
    path.push(current);
    current = dependencies[current]!.find((dependency) => unmet[dependency]! > 0)!;
  }
  // The walk follows dependencies (backwards along edges); print the cycle in execution order,
  // starting from the node listed first.
  const cycle = path.slice(visitedAt.get(current)).reverse();
  const first = cycle.indexOf(Math.min(...cycle));
  const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
  return [...rotated, rotated[0]!].map((index) => nodes[index]!.id);
}
