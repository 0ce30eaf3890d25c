import { DagentError } from '../errors.js';

/** The node list handed to the scheduler is not a DAG it can run: duplicate ids, unknown dependencies, cycles. */
export class ScheduleInputError extends DagentError {
  constructor(readonly issues: readonly string[]) {
    super(`cannot schedule these nodes: ${issues.join('; ')}`);
  }
}

/** An amended node list that would change work already started or done. */
export class ScheduleAmendError extends DagentError {
  constructor(readonly issues: readonly string[]) {
    super(`cannot amend the running schedule: ${issues.join('; ')}`);
  }
}
