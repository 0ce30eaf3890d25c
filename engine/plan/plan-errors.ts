import { DagentError } from '../errors.js';
import { formatPlanIssues, type PlanIssue } from './plan-issue.js';

/** A plan document that cannot be used, with every problem found (not just the first). */
export class PlanInvalidError extends DagentError {
  constructor(readonly issues: readonly PlanIssue[], readonly source?: string) {
    super(formatPlanIssues(issues, source));
  }
}

/** The plan's dependencies form a cycle; `cycle` is the path, first node repeated at the end. */
export class GraphCycleError extends DagentError {
  constructor(readonly cycle: readonly string[]) {
    super(`the plan has a dependency cycle ${cycle.join(' → ')}: remove one of these dependencies`);
  }
}
