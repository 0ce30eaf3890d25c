import type { LintFinding } from './lint-finding.js';
import type { Plan } from './plan-schema.js';

/**
 * Checks a plan version against the repository (plan lint). The engine records what it finds with
 * every version it stores and stops a replanned version with errors for review; the composition
 * root supplies it (the engine knows no planner).
 */
export type PlanLinter = (plan: Plan, signal: AbortSignal) => Promise<readonly LintFinding[]>;
