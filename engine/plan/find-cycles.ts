import type { PlanGraph } from './plan-graph.js';

/**
 * One short cycle per strongly connected component of the graph, each written as a path that
 * ends where it starts (`a → b → c → a` is `['a', 'b', 'c', 'a']`) and starts at the component's
 * earliest node in the plan. Iterative, so deep chains do not exhaust the stack.
 */
export function findCycles(graph: PlanGraph): readonly (readonly string[])[] {
  const cycles: string[][] = [];
  for (const component of stronglyConnectedComponents(graph)) {
    if (component.length < 2) continue;
    const start = component.reduce((best, id) => (position(graph, id) < position(graph, best) ? id : best));
    cycles.push(shortestCycleThrough(graph, start, new Set(component)));
  }
  return cycles.sort((a, b) => position(graph, a[0]!) - position(graph, b[0]!));
}

function position(graph: PlanGraph, id: string): number {
  return graph.getNodeAttribute(id, 'index');
}

/** Kosaraju: finish order on the graph, then components on the reversed graph. */
function stronglyConnectedComponents(graph: PlanGraph): string[][] {
  const finished: string[] = [];
  const visited = new Set<string>();
  for (const root of graph.nodes()) {
    if (visited.has(root)) continue;
    visited.add(root);
    const stack: { id: string; next: string[] }[] = [{ id: root, next: graph.outNeighbors(root) }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const child = top.next.pop();
      if (child === undefined) {
        finished.push(top.id);
        stack.pop();
      } else if (!visited.has(child)) {
        visited.add(child);
        stack.push({ id: child, next: graph.outNeighbors(child) });
      }
    }
  }
  const assigned = new Set<string>();
  const components: string[][] = [];
  for (const root of finished.reverse()) {
    if (assigned.has(root)) continue;
    assigned.add(root);
    const component: string[] = [];
    const stack = [root];
    while (stack.length > 0) {
      const id = stack.pop()!;
      component.push(id);
      for (const parent of graph.inNeighbors(id)) {
        if (!assigned.has(parent)) {
          assigned.add(parent);
          stack.push(parent);
        }
      }
    }
    components.push(component);
  }
  return components;
}

/** Breadth-first from `start` inside its component until an edge leads back to it. */
function shortestCycleThrough(graph: PlanGraph, start: string, component: ReadonlySet<string>): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    const children = graph.outNeighbors(id).sort((a, b) => position(graph, a) - position(graph, b));
    for (const child of children) {
      if (child === start) return [...pathTo(parent, start, id), start];
      if (!component.has(child) || parent.has(child)) continue;
      parent.set(child, id);
      queue.push(child);
    }
  }
  throw new Error(`no cycle through ${start}: not a strongly connected component`);
}

function pathTo(parent: ReadonlyMap<string, string>, start: string, end: string): string[] {
  const path = [end];
  while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
  return path;
}
