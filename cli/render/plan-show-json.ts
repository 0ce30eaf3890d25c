import type { Plan, PlanAnalysis, PlanEstimate, LintFinding } from '../../engine/index.js';

/** `dagent show --json`: the plan document plus its analysis (docs/operations.md, JSON output). */
export interface PlanShowDocument extends Plan {
  readonly stages: readonly (readonly string[])[];
  readonly criticalPath: readonly string[];
  readonly width: number;
  readonly estimate: PlanEstimate | null;
  readonly lint: readonly LintFinding[];
}

/** The document to `JSON.stringify`; still a valid plan document for `import` (extra fields are dropped). */
export function planShowJson(plan: Plan, analysis: PlanAnalysis): PlanShowDocument {
  return {
    ...plan,
    stages: analysis.stages,
    criticalPath: analysis.criticalPath,
    width: analysis.width,
    estimate: analysis.estimate,
    lint: analysis.lint,
  };
}
