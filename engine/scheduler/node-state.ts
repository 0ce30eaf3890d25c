import type { NodeStatus } from './node-status.js';
import type { SchedulableNode } from './schedulable-node.js';
import type { ScheduleGraph } from './schedule-graph.js';
import type { NodeReport, ScheduleResult, ScheduleSnapshot } from './schedule-options.js';

/** A node's live state inside the loop; graph links are direct references so a completion costs O(its dependents). */
export interface NodeState<R> {
  node: SchedulableNode;
  status: NodeStatus;
  /** Attempts started, counting earlier sessions. */
  attempts: number;
  /** Attempts since the node last (re)started: what the retry budget counts. */
  budgetUsed: number;
  /** Dependencies not succeeded yet. */
  unmet: number;
  dependencies: NodeState<R>[];
  dependents: NodeState<R>[];
  /** Bumped on every dispatch and withdrawal; a ticket with an old token is stale. */
  token: number;
  /** Its cost and the costliest chain after it (`rankNodeStates`): the higher, the sooner it gets a slot. */
  rank: number;
  result: R | undefined;
  error: string | undefined;
}

/** One dispatch of a node: valid while the node's token still equals `token`. */
export interface Ticket<R> {
  readonly state: NodeState<R>;
  readonly token: number;
}

export function createNodeState<R>(node: SchedulableNode, status: NodeStatus = 'pending', attempts = 0): NodeState<R> {
  return { node, status, attempts, budgetUsed: 0, unmet: 0, dependencies: [], dependents: [], token: 0, rank: 0, result: undefined, error: undefined };
}

/** The states a schedule starts with: every node linked to its dependencies, with its status and attempts from an earlier session. */
export function initialNodeStates<R>(graph: ScheduleGraph, statuses?: ReadonlyMap<string, NodeStatus>, attempts?: ReadonlyMap<string, number>): NodeState<R>[] {
  const states = graph.nodes.map((node) => createNodeState<R>(node, statuses?.get(node.id), attempts?.get(node.id)));
  linkNodeStates(states, graph);
  return states;
}

/** Points each state (in `graph` order) at its dependencies and dependents. */
export function linkNodeStates<R>(states: readonly NodeState<R>[], graph: ScheduleGraph): void {
  states.forEach((state, index) => {
    state.dependencies = graph.dependencies[index]!.map((position) => states[position]!);
    state.dependents = graph.dependents[index]!.map((position) => states[position]!);
  });
}

/** States for an amended graph: known nodes keep theirs (status, attempts, result), new ones start pending. */
export function rebuildNodeStates<R>(byId: ReadonlyMap<string, NodeState<R>>, graph: ScheduleGraph): NodeState<R>[] {
  const states = graph.nodes.map((node) => {
    const state = byId.get(node.id);
    if (state === undefined) return createNodeState<R>(node);
    state.node = node;
    return state;
  });
  linkNodeStates(states, graph);
  return states;
}

/** The schedule's outcome: `cancelled` when it was cancelled, `succeeded` when every node succeeded, else `failed`. */
export function scheduleReport<R>(states: readonly NodeState<R>[], cancelled: boolean): ScheduleResult<R> {
  const nodes = new Map<string, NodeReport<R>>();
  let allSucceeded = true;
  for (const state of states) {
    if (state.status !== 'succeeded') allSucceeded = false;
    const { status, attempts, error } = state;
    // Literals rather than spreads: this runs once per node at the end of every schedule.
    if (status === 'succeeded') nodes.set(state.node.id, { status, attempts, result: state.result as R });
    else nodes.set(state.node.id, error === undefined ? { status, attempts } : { status, attempts, error });
  }
  return { status: cancelled ? 'cancelled' : allSucceeded ? 'succeeded' : 'failed', nodes };
}

/** The nodes and their statuses now, for a replanning decision. */
export function scheduleSnapshot<R>(states: readonly NodeState<R>[]): ScheduleSnapshot {
  return { nodes: states.map((state) => state.node), statuses: new Map(states.map((state) => [state.node.id, state.status])) };
}
