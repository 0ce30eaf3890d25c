import { DagentError } from '../../errors.js';

/** The lifecycle of a run. */
export type RunStatus =
  | 'planning'
  | 'awaiting_approval'
  | 'approved'
  | 'running'
  /** Stopped at its budget: the plan stays approved; `resume` with a higher budget goes on. */
  | 'paused'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'rejected';

export const RUN_STATUSES: readonly RunStatus[] = ['planning', 'awaiting_approval', 'approved', 'running', 'paused', 'succeeded', 'failed', 'cancelled', 'rejected'];

const TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  planning: ['awaiting_approval', 'approved', 'failed', 'cancelled'],
  awaiting_approval: ['approved', 'rejected', 'awaiting_approval', 'cancelled'],
  approved: ['running', 'awaiting_approval', 'cancelled', 'rejected'],
  running: ['succeeded', 'failed', 'cancelled', 'awaiting_approval', 'approved', 'running', 'paused'],
  paused: ['running', 'awaiting_approval', 'approved', 'cancelled'],
  // → approved: `rerun` stores a plan version the asking approves.
  succeeded: ['awaiting_approval', 'approved'],
  failed: ['running', 'awaiting_approval', 'approved'],
  cancelled: ['running', 'awaiting_approval', 'approved'],
  rejected: ['awaiting_approval'],
};

export class IllegalRunTransitionError extends DagentError {
  constructor(readonly from: RunStatus, readonly to: RunStatus) {
    super(`a run that is ${from} cannot become ${to}`);
  }
}

/** The one transition function of a run: returns the new status or throws on an illegal move. */
export function transitionRun(from: RunStatus, to: RunStatus): RunStatus {
  if (!TRANSITIONS[from].includes(to)) throw new IllegalRunTransitionError(from, to);
  return to;
}

export function isRunStatus(value: string): value is RunStatus {
  return (RUN_STATUSES as readonly string[]).includes(value);
}

export function isTerminalRunStatus(status: RunStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled' || status === 'rejected';
}
