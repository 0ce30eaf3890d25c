import { DagentError } from '../errors.js';
import type { NodeStatus } from './node-status.js';

/** A move the node lifecycle does not allow; always a bug in the caller or the scheduler. */
export class IllegalNodeTransitionError extends DagentError {
  constructor(readonly from: NodeStatus, readonly to: NodeStatus, readonly nodeId?: string) {
    super(`${nodeId === undefined ? 'a node' : `node "${nodeId}"`} that is ${from} cannot become ${to}`);
  }
}

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
