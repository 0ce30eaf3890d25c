import type { NodeState } from './node-state.js';
import type { SchedulableNode } from './schedulable-node.js';

/**
 * Each node's rank: its own cost plus the costliest chain of dependents after it (HLFET's "bottom
 * level"). When slots are short, the ready node of highest rank starts first: the node that holds
 * up the most work after it, so the critical path does not queue behind short side branches.
 * Ties keep the order of the node list. Costs that are not finite numbers of at least 0 count 0.
 */
export function rankNodeStates<R>(states: readonly NodeState<R>[], costOf: (node: SchedulableNode) => number = () => 1): void {
  for (const state of dependentsFirst(states)) {
    let after = 0;
    for (const dependent of state.dependents) after = Math.max(after, dependent.rank);
    const cost = costOf(state.node);
    state.rank = (Number.isFinite(cost) && cost > 0 ? cost : 0) + after;
  }
}

/** Higher rank first; equal ranks in their given order. */
export function byRank<R>(states: readonly NodeState<R>[]): NodeState<R>[] {
  return [...states].sort((a, b) => b.rank - a.rank);
}

/** Every node after all of its dependents (the graph is acyclic: the schedule checked it). */
function dependentsFirst<R>(states: readonly NodeState<R>[]): NodeState<R>[] {
  const waiting = new Map(states.map((state) => [state, state.dependents.length]));
  const order = states.filter((state) => state.dependents.length === 0);
  for (let head = 0; head < order.length; head += 1) {
    for (const dependency of order[head]!.dependencies) {
      const left = waiting.get(dependency)! - 1;
      waiting.set(dependency, left);
      if (left === 0) order.push(dependency);
    }
  }
  return order;
}
