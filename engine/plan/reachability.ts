import type { Plan } from './plan-schema.js';
import { planGraph, type PlanGraph } from './plan-graph.js';

/** Which nodes a path of dependencies connects: the order two nodes are guaranteed to run in. */
export interface Reachability {
  /** True when `to` runs after `from` through a chain of dependencies (never for `from === to`). */
  hasPath(from: string, to: string): boolean;
  /** True when a path runs one way or the other between the two nodes. */
  areOrdered(a: string, b: string): boolean;
  /** Every node that runs after `id` through its dependents. */
  descendants(id: string): ReadonlySet<string>;
}

/**
 * Reachability over the plan's graph (pass the graph when it is already built); descendants are
 * computed on first use and kept.
 */
export function createReachability(plan: Plan, graph: PlanGraph = planGraph(plan)): Reachability {
  const cache = new Map<string, ReadonlySet<string>>();
  const descendants = (id: string): ReadonlySet<string> => {
    const known = cache.get(id);
    if (known !== undefined) return known;
    const found = new Set<string>();
    if (graph.hasNode(id)) {
      const stack = [...graph.outNeighbors(id)];
      while (stack.length > 0) {
        const next = stack.pop()!;
        if (found.has(next)) continue;
        found.add(next);
        stack.push(...graph.outNeighbors(next));
      }
    }
    found.delete(id);
    cache.set(id, found);
    return found;
  };
  const hasPath = (from: string, to: string): boolean => from !== to && descendants(from).has(to);
  return { hasPath, areOrdered: (a, b) => hasPath(a, b) || hasPath(b, a), descendants };
}
