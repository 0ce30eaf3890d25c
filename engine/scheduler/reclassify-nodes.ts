import type { NodeState } from './node-state.js';
import type { NodeStatus } from './node-status.js';
import { readyNodes } from './ready-nodes.js';

export interface Reclassification<R> {
  /** Ready nodes that now wait for a dependency that has not succeeded: back to pending. */
  readonly unready: readonly NodeState<R>[];
  /** Skipped nodes whose dependencies can all still succeed: back to pending. */
  readonly unskip: readonly NodeState<R>[];
  /** Nodes that will be pending and can never start, each with the dependency that blocks it. */
  readonly skip: readonly (readonly [node: NodeState<R>, blocker: NodeState<R>])[];
}

/**
 * Which not-started nodes change status after the graph or a failure's consequences were
 * re-decided (an amendment, or a failure hook that let the failure stand). Reads statuses only.
 */
export function reclassifyNodes<R>(states: readonly NodeState<R>[]): Reclassification<R> {
  const unready = states.filter((state) => state.status === 'ready' && state.dependencies.some((dependency) => dependency.status !== 'succeeded'));
  // Only a failed or cancelled node blocks (skipped and unready ones count as pending below); with
  // none, nothing is skipped and every skipped node comes back. A run's first step is this case.
  if (!states.some((state) => state.status === 'failed' || state.status === 'cancelled')) {
    return { unready, unskip: states.filter((state) => state.status === 'skipped'), skip: [] };
  }
  const unreadySet = new Set(unready);
  const statuses = new Map<string, NodeStatus>(
    states.map((state) => [state.node.id, state.status === 'skipped' || unreadySet.has(state) ? 'pending' : state.status]),
  );
  const byId = new Map(states.map((state) => [state.node.id, state]));
  const blocked = new Map(readyNodes(states.map((state) => state.node), statuses).skip.map((skip) => [skip.id, skip.blockedBy]));
  const unskip = states.filter((state) => state.status === 'skipped' && !blocked.has(state.node.id));
  const skip = [...blocked]
    .map(([id, blocker]) => [byId.get(id)!, byId.get(blocker)!] as const)
    .filter(([state]) => state.status === 'pending' || unreadySet.has(state));
  return { unready, unskip, skip };
}
