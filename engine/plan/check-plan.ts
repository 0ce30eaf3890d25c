import { lenientPlan } from './lenient-plan.js';
import { PlanInvalidError } from './plan-errors.js';
import type { PlanIssue } from './plan-issue.js';
import type { PlanRules } from './plan-rules.js';
import { planSchema, type Plan } from './plan-schema.js';
import { schemaIssues } from './schema-issues.js';
import { validatePlan } from './validate-plan.js';

/** The outcome of checking a plan: the plan, or every issue found. */
export type PlanCheck = { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly issues: readonly PlanIssue[] };

/**
 * The schema's issues, then the graph checks of `validatePlan` (duplicate ids, unknown
 * dependencies, cycles, write conflicts…), in one listing: when the schema refuses the document,
 * the graph checks still run on what can be read of its nodes (`lenientPlan`). For a value
 * already parsed from JSON: a stored body, a planner's output. `rules`: as the run's isolation
 * allows (unordered nodes writing one file are refused unless they are `merge`d).
 */
export function checkPlan(given: unknown, rules?: PlanRules): PlanCheck {
  const value = withoutReviewFields(given);
  const parsed = planSchema.safeParse(value);
  if (!parsed.success) {
    const readable = lenientPlan(value);
    return { ok: false, issues: [...schemaIssues(parsed.error, value), ...(readable === undefined ? [] : validatePlan(readable, rules))] };
  }
  const issues = validatePlan(parsed.data, rules);
  return issues.length === 0 ? { ok: true, plan: parsed.data } : { ok: false, issues };
}

/**
 * The fields `dagent show --json` adds beside the plan (its review and the run's version): such a
 * document imports again. Any other field the plan does not have is an issue, as in a node (a
 * typo of `strictWrites` was dropped without a word).
 */
const REVIEW_FIELDS = ['stages', 'criticalPath', 'width', 'estimate', 'lint', 'runId', 'status', 'planVersion', 'hash', 'reused'];

function withoutReviewFields(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !REVIEW_FIELDS.includes(key)));
}

/** `checkPlan` that throws `PlanInvalidError` (naming `source`, e.g. the file) on any issue. */
export function parsePlan(value: unknown, options: { readonly source?: string; readonly rules?: PlanRules | undefined } = {}): Plan {
  const check = checkPlan(value, options.rules);
  if (!check.ok) throw new PlanInvalidError(check.issues, options.source);
  return check.plan;
}
