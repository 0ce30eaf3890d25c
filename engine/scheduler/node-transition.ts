import type { NodeStatus } from './node-status.js';
import type { NodeWaitsFor } from './schedulable-node.js';

interface TransitionBase {
  readonly nodeId: string;
  readonly from: NodeStatus;
  /** Attempts started so far for this node, counting earlier sessions of the run. */
  readonly attempts: number;
}

/**
 * One change of a node's status, as handed to `onTransitions` to be stored, in the order the scheduler decided it.
 * `kind` tells apart the moves that share a target status (`ready` vs `retried`).
 */
export type NodeTransition<R = unknown> =
  | (TransitionBase & { readonly kind: 'reset'; readonly to: 'pending'; readonly cause: 'resume' | 'amend' })
  | (TransitionBase & { readonly kind: 'ready'; readonly to: 'ready' })
  | (TransitionBase & { readonly kind: 'started'; readonly to: 'running' })
  | (TransitionBase & { readonly kind: 'succeeded'; readonly to: 'succeeded'; readonly result: R })
  | (TransitionBase & { readonly kind: 'retried'; readonly to: 'ready'; readonly error: string; readonly delayMs: number })
  | (TransitionBase & { readonly kind: 'failed'; readonly to: 'failed'; readonly error: string; readonly waitsFor?: NodeWaitsFor })
  | (TransitionBase & { readonly kind: 'skipped'; readonly to: 'skipped'; readonly blockedBy: string; readonly reason: string })
  | (TransitionBase & { readonly kind: 'cancelled'; readonly to: 'cancelled'; readonly reason: string });

export type NodeTransitionKind = NodeTransition['kind'];
