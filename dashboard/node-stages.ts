import type { NodeView, RunView } from '../engine/index.js';

export interface Stage {
  /** 1-based: a node's stage is one more than the latest stage among its dependencies. */
  readonly index: number;
  readonly nodes: readonly NodeView[];
}

/** The DAG by stage, nodes in plan order within a stage. Unknown dependencies count as stage 0. */
export function nodeStages(view: RunView): Stage[] {
  const level = new Map<string, number>();
  const levelOf = (id: string, seen: Set<string>): number => {
    const known = level.get(id);
    if (known !== undefined) return known;
    const node = view.nodes.get(id);
    if (node === undefined || seen.has(id)) return 0;
    seen.add(id);
    const value = 1 + Math.max(0, ...node.dependsOn.map((dependency) => levelOf(dependency, seen)));
    level.set(id, value);
    return value;
  };
  const byLevel = new Map<number, NodeView[]>();
  for (const id of view.order) {
    const node = view.nodes.get(id);
    if (node === undefined) continue;
    const index = levelOf(id, new Set());
    byLevel.set(index, [...(byLevel.get(index) ?? []), node]);
  }
  return [...byLevel.entries()].sort(([a], [b]) => a - b).map(([index, nodes]) => ({ index, nodes }));
}

/** The dependencies a node still waits on: those not succeeded yet. */
export function waitsOn(view: RunView, node: NodeView): string[] {
  if (node.status !== 'pending' && node.status !== 'ready') return [];
  return node.dependsOn.filter((id) => view.nodes.get(id)?.status !== 'succeeded');
}
