import type { SessionEvent } from '../../session/index.js';
import type { NodeStatus } from '../../scheduler/node-status.js';
import { NODE_TRANSITION_EVENT_TYPES } from '../storage/node-event.js';
import { newNodeView, reduceNodeTransition } from './node-view.js';
import type { NodeView } from './run-view-types.js';

export interface FoldedNodeState {
  readonly status: NodeStatus;
  readonly attempts: number;
}

const TRANSITIONS: ReadonlySet<string> = new Set(NODE_TRANSITION_EVENT_TYPES);

/**
 * Each node's last status and attempt count from the run's `node/*` events in seq order: what a
 * resumed schedule takes as `initialStatus` and `initialAttempts`, and what a worker checks its
 * claim against. The same per-node fold as the run view (`reduceNodeTransition`); unlike the view it
 * ignores `run/started`, which shows unfinished nodes as pending: the scheduler maps a node's last
 * recorded status itself (`resumeStatus`), and a reset to pending leaves no event of its own.
 * Other events are skipped, so callers may pass a log read for more types.
 */
export function nodeStatesFromEvents(events: readonly SessionEvent[]): Map<string, FoldedNodeState> {
  const nodes = new Map<string, NodeView>();
  for (const event of events) {
    if (event.nodeId === null || !TRANSITIONS.has(event.type)) continue;
    nodes.set(event.nodeId, reduceNodeTransition(nodes.get(event.nodeId) ?? newNodeView(event.nodeId), event as SessionEvent<(typeof NODE_TRANSITION_EVENT_TYPES)[number]>));
  }
  return new Map([...nodes].map(([id, node]) => [id, { status: node.status, attempts: node.attempts }]));
}
