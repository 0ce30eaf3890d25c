import { DagentError } from '../errors.js';

/**
 * The lifecycle of one plan version. A new version supersedes the one before it (an edit, an
 * import, a replan); `rejected` and `superseded` are final.
 */
export type PlanStatus = 'draft' | 'awaiting_approval' | 'approved' | 'rejected' | 'superseded';

export const PLAN_STATUSES: readonly PlanStatus[] = ['draft', 'awaiting_approval', 'approved', 'rejected', 'superseded'];

const TRANSITIONS: Readonly<Record<PlanStatus, readonly PlanStatus[]>> = {
  draft: ['awaiting_approval', 'approved', 'rejected', 'superseded'],
  awaiting_approval: ['approved', 'rejected', 'superseded'],
  approved: ['rejected', 'superseded'],
  rejected: [],
  superseded: [],
};

export class IllegalPlanTransitionError extends DagentError {
  constructor(readonly from: PlanStatus, readonly to: PlanStatus) {
    super(`a plan that is ${from.replace('_', ' ')} cannot become ${to.replace('_', ' ')}`);
  }
}

/** The one transition function of a plan version: the new status, or a throw on an illegal move. */
export function transitionPlan(from: PlanStatus, to: PlanStatus): PlanStatus {
  if (!TRANSITIONS[from].includes(to)) throw new IllegalPlanTransitionError(from, to);
  return to;
}

export function isPlanStatus(value: string): value is PlanStatus {
  return (PLAN_STATUSES as readonly string[]).includes(value);
}

export function isFinalPlanStatus(status: PlanStatus): boolean {
  return TRANSITIONS[status].length === 0;
}
