import type { LintFinding } from './lint-finding.js';
import type { PlanLinter } from './plan-linter.js';
import type { Plan } from './plan-schema.js';

/** The linter's findings on a new plan version; a linter that fails (or none) records nothing rather than failing the run. */
export async function planLintFindings(linter: PlanLinter | undefined, plan: Plan, signal: AbortSignal): Promise<readonly LintFinding[]> {
  if (linter === undefined) return [];
  try {
    return await linter(plan, signal);
  } catch {
    return [];
  }
}
