import { PlanInvalidError } from './plan-errors.js';
import type { PlanIssue } from './plan-issue.js';
import { planSchema, type Plan } from './plan-schema.js';
import { schemaIssues } from './schema-issues.js';
import { validatePlan } from './validate-plan.js';

/** The outcome of checking a plan: the plan, or every issue found. */
export type PlanCheck = { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly issues: readonly PlanIssue[] };

/**
 * Schema first, then the graph checks of `validatePlan` (which need a well-formed plan). For a
 * value already parsed from JSON: a stored body, a planner's output.
 */
export function checkPlan(value: unknown): PlanCheck {
  const parsed = planSchema.safeParse(value);
  if (!parsed.success) return { ok: false, issues: schemaIssues(parsed.error, value) };
  const issues = validatePlan(parsed.data);
  return issues.length === 0 ? { ok: true, plan: parsed.data } : { ok: false, issues };
}

/** `checkPlan` that throws `PlanInvalidError` (naming `source`, e.g. the file) on any issue. */
export function parsePlan(value: unknown, options: { readonly source?: string } = {}): Plan {
  const check = checkPlan(value);
  if (!check.ok) throw new PlanInvalidError(check.issues, options.source);
  return check.plan;
}
