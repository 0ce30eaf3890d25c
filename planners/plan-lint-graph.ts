/** The dependency structure plan lint needs: which nodes run, transitively, after which. */
export interface PlanReachability {
  /** Whether a dependency path leads from `from` to `to` (`to` runs after `from`); false for `from === to`. */
  reaches(from: string, to: string): boolean;
  /** Every node that depends on `id`, directly or transitively. */
  descendants(id: string): ReadonlySet<string>;
}

/**
 * Reachability over `dependsOn` edges, computed per node on first use. Dependencies on unknown
 * ids are ignored and cycles do not loop (the schema check reports both); a node on a cycle
 * counts as its own descendant, which only ever makes it look better ordered than it is.
 */
export function planReachability(nodes: readonly { readonly id: string; readonly dependsOn: readonly string[] }[]): PlanReachability {
  const dependents = new Map<string, string[]>();
  for (const node of nodes) {
    for (const dependency of node.dependsOn) {
      const list = dependents.get(dependency);
      if (list === undefined) dependents.set(dependency, [node.id]);
      else list.push(node.id);
    }
  }
  const memo = new Map<string, ReadonlySet<string>>();
  const descendants = (id: string): ReadonlySet<string> => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const seen = new Set<string>();
    const stack = [...(dependents.get(id) ?? [])];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(dependents.get(next) ?? []));
    }
    memo.set(id, seen);
    return seen;
  };
  return {
    descendants,
    reaches: (from, to) => from !== to && descendants(from).has(to),
  };
}
