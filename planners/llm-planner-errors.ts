import { DagentError, formatPlanIssues, type EndReason, type PlanIssue } from '../engine/index.js';

/** Why the planner stopped before it gave an answer that could be checked. */
export interface PlannerStop {
  readonly reason: Exclude<EndReason, 'done'>;
  readonly detail?: string;
}

export interface PlanningFailure {
  readonly runId: string;
  /** `plan` for a new plan, `amend` for a replan. */
  readonly operation: 'plan' | 'amend';
  /** Answers asked for in the turn: the first one and every repair. */
  readonly attempts: number;
  /** The problems of the last answer that was checked; empty when none was. */
  readonly issues: readonly PlanIssue[];
  /** Set when the planner agent stopped (step limit, model error, ...) instead of answering. */
  readonly stopped?: PlannerStop;
}

/**
 * The planner gave no usable plan: every answer was invalid up to the repair limit, or the agent
 * stopped before answering. Every attempt is in the run log under node `planner`. Exit code 1:
 * the job ran and failed.
 */
export class PlanningFailedError extends DagentError {
  readonly runId: string;
  readonly operation: 'plan' | 'amend';
  readonly attempts: number;
  readonly issues: readonly PlanIssue[];
  readonly stopped: PlannerStop | undefined;

  constructor(failure: PlanningFailure) {
    super(planningFailedMessage(failure), { exitCode: 1 });
    this.runId = failure.runId;
    this.operation = failure.operation;
    this.attempts = failure.attempts;
    this.issues = failure.issues;
    this.stopped = failure.stopped;
  }
}

function planningFailedMessage(failure: PlanningFailure): string {
  const what = failure.operation === 'plan' ? 'planning failed' : 'amending the plan failed';
  const where = `\`dagent log ${failure.runId} --node planner\` shows every attempt`;
  const attempts = `${failure.attempts} ${failure.attempts === 1 ? 'attempt' : 'attempts'}`;
  if (failure.stopped !== undefined) {
    const detail = failure.stopped.detail === undefined ? '' : `: ${failure.stopped.detail}`;
    return `${what}: the planner stopped before answering (${failure.stopped.reason.replace(/_/g, ' ')}${detail}) in attempt ${failure.attempts}; ${where}`;
  }
  return `${what}: no valid plan after ${attempts} (${failure.attempts - 1} repairs); ${where}. The last answer: ${formatPlanIssues(failure.issues)}`;
}
