import type { NodeTransition } from './node-transition.js';
import type { Ticket } from './node-state.js';
import type { NodeOutcome } from './schedulable-node.js';
import type { ScheduleGraph } from './schedule-graph.js';
import type { Amendment, AmendOutcome } from './schedule-options.js';
import type { StartDecision } from './schedule-runner.js';

export interface StartInput<R> {
  readonly kind: 'start';
  readonly ticket: Ticket<R>;
  readonly grant: (decision: StartDecision) => void;
}

/** Everything that can happen to a schedule, as the loop's inbox receives it. */
export type LoopInput<R> =
  | { readonly kind: 'begin' }
  | StartInput<R>
  | { readonly kind: 'settled'; readonly ticket: Ticket<R>; readonly outcome: NodeOutcome<R> }
  | { readonly kind: 'retry-due'; readonly ticket: Ticket<R> }
  | { readonly kind: 'cancel'; readonly reason: string }
  | { readonly kind: 'amend'; readonly amendment: Amendment; readonly graph: ScheduleGraph; readonly done: (outcome: AmendOutcome | Error) => void }
  | { readonly kind: 'release' }
  | { readonly kind: 'fatal'; readonly error: unknown };

/**
 * What one step decided: transitions to store; starts to grant as soon as the transitions are
 * queued for storing (each attempt is handed the promise of its `started` being stored); effects
 * to run once they are stored, or `abandon` when storing fails or the schedule stops first.
 */
export interface Step<R> {
  readonly transitions: NodeTransition<R>[];
  readonly starts: ((stored: Promise<void>) => void)[];
  readonly effects: (() => void)[];
  readonly abandon: (() => void)[];
}

/** A transition without the fields the loop fills in from the node's state. */
export type TransitionBody<R> = NodeTransition<R> extends infer T ? (T extends NodeTransition<R> ? Omit<T, 'nodeId' | 'from' | 'attempts'> : never) : never;

