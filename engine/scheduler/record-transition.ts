import type { Step, TransitionBody } from './loop-input.js';
import type { NodeState } from './node-state.js';
import { transitionNode } from './node-status.js';
import type { NodeTransition } from './node-transition.js';

/**
 * Moves a node to `body.to` (a move `transitionNode` allows, else it throws), completes the
 * transition from the node's state and queues it in the step. Returns how the count of nodes ready
 * or running changes: -1, 0 or 1.
 */
export function recordTransition<R>(step: Step<R>, state: NodeState<R>, body: TransitionBody<R>): number {
  const from = state.status;
  transitionNode(from, body.to, state.node.id);
  const wasActive = from === 'ready' || from === 'running';
  const isActive = body.to === 'ready' || body.to === 'running';
  state.status = body.to;
  // Completes the caller's fresh object literal in place: a spread into a new object is the
  // slowest line of the scheduler's hot path (the bodies have many shapes).
  const transition = body as { -readonly [K in keyof NodeTransition<R>]: NodeTransition<R>[K] };
  transition.nodeId = state.node.id;
  transition.from = from;
  transition.attempts = state.attempts;
  step.transitions.push(transition as NodeTransition<R>);
  return wasActive === isActive ? 0 : isActive ? 1 : -1;
}
