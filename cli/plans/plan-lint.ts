import {
  PLAN_LINT_EVENT_TYPES,
  PlanLintBlockedError,
  approvalAllowances,
  currentPlan,
  lintGateVerdict,
  lintOptions,
  readEvents,
  recordedLint,
  visibleText,
} from '../../engine/read-face.js';
import type { Plan, PlanLinter, LintFinding, RunRecord } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { loadPlanners } from '../runtime/load-planners.js';
import { warmLanguageService } from '../runtime/language-daemon/warm-language-service.js';
import { workspaceLanguageService } from '../runtime/workspace-language-service.js';
import { replaceWorkspaceRepoMap, workspaceRepoMap } from '../runtime/workspace-repo-map.js';
import { lintBasisHolds, rememberLintBasis } from './lint-basis.js';
import { planRulesFor } from './plan-rules.js';

/**
 * Plan lint for review (planners' `lintForReview`, its `scan-failed` fallback included) wired to
 * the context: its scan, its language service, the config's `lint.errors`. The findings are
 * remembered with the fingerprint of the scan they were computed on, for the gate.
 */
export async function lintForReview(context: CliContext, plan: Plan): Promise<LintFinding[]> {
  const planners = await loadPlanners();
  const { findings, fingerprint } = await planners.lintForReview({
    workspace: context.workspace,
    plan,
    scan: () => workspaceRepoMap(context),
    // A review (plan, show, approve) is one short command: the workspace's warm service answers member changes.
    languageService: () => warmLanguageService(context),
    options: { ...lintOptions(context.config.lint?.errors, planners.LINT_CODES), parallelWrites: (await planRulesFor(context)).parallelWrites },
    signal: context.io.interrupt,
  });
  await rememberLintBasis(context.workspace, plan, findings, fingerprint);
  return findings;
}

/**
 * The engine's linter for the plan versions it stores (planned, replanned): lint against a fresh
 * scan (nodes may have created or changed files since the context's scan), which becomes the
 * context's scan, with the context's language service.
 */
export function planLinter(context: CliContext): PlanLinter {
  return async (plan, signal) => {
    const planners = await loadPlanners();
    const map = await planners.scanRepository(context.workspace, { signal });
    replaceWorkspaceRepoMap(context, map);
    const { findings } = await planners.lintForReview({
      workspace: context.workspace,
      plan,
      scan: () => Promise.resolve(map),
      languageService: () => workspaceLanguageService(context),
      options: { ...lintOptions(context.config.lint?.errors, planners.LINT_CODES), parallelWrites: (await planRulesFor(context)).parallelWrites },
      signal,
    });
    await rememberLintBasis(context.workspace, plan, findings, map.fingerprint);
    return findings;
  };
}

/** `--allow-lint CODE` of `approve`, `run` and `plan --yes`. */
export const ALLOW_LINT_OPTION = {
  type: 'string',
  array: true,
  requiresArg: true,
  describe: 'let a lint error of this code through (repeatable; "all" for every code)',
} as const;

/**
 * Lint that binds: the lint errors of the run's current plan version stop `approve` and `run`
 * (exit 2), each named with the flag that lets it through; `--allow-lint CODE` (repeatable, or
 * `all`) allows those codes, and so does the approval of the version when it allowed them. The
 * findings are the ones recorded when the version was stored (`plan/created`, `plan/amended`)
 * while the repository is as it was then; a version stored without them, or a repository changed
 * since, is linted now. Resolves to the codes of the errors the flag let through,
 * for the caller to record (`plan/approved`, `run/started`). `run`: its id, or its row when the
 * command has read it already (not read again).
 */
export async function checkLintGate(context: CliContext, run: string | RunRecord, allowed: readonly string[] = []): Promise<string[]> {
  const { db } = await context.store();
  const runId = typeof run === 'string' ? run : run.id;
  const stored = await currentPlan(db, run);
  const { findings, relinted } = await currentVersionLint(context, runId, stored.version, stored.plan);
  // A code given to let through that no error of the plan has is a typo or stale: said, not silently kept.
  const errorCodes = new Set(findings.filter((finding) => finding.level === 'error').map((finding) => finding.code));
  for (const code of allowed) {
    if (code !== 'all' && !errorCodes.has(code)) writeLine(context.io.stderr, `dagent: warning: --allow-lint ${visibleText(code)} lets nothing through: plan v${stored.version} has no lint error ${visibleText(code)}${errorCodes.size === 0 ? '' : ` (its errors: ${[...errorCodes].join(', ')})`}`);
  }
  if (errorCodes.size === 0) return [];
  const approvedWith = stored.status === 'approved' ? approvalAllowances(await readEvents(db, runId, { types: ['plan/approved'] }), stored.version) : [];
  const { blocking, letThrough } = lintGateVerdict(findings, { approvedWith, allowed });
  if (blocking.length > 0) throw new PlanLintBlockedError({ runId, version: stored.version, blocking, relinted });
  return [...letThrough];
}

/**
 * A stored version's lint for review (`show`, `plan`): the findings recorded with it, or (for a
 * version stored without them) linted now. It does not scan to check that the recorded findings
 * still hold, so a read-only command stays cheap; the gate (`checkLintGate`) does.
 */
export async function versionLint(context: CliContext, runId: string, version: number, plan: Plan): Promise<LintFinding[]> {
  return (await storedLint(context, runId, version)) ?? (await lintForReview(context, plan));
}

/**
 * A stored version's lint as it stands now: the findings recorded with it while the repository
 * scan still has the fingerprint they were computed on; else (a file edited, created or deleted
 * since, a config changed, or no findings recorded) the plan linted now.
 */
async function currentVersionLint(context: CliContext, runId: string, version: number, plan: Plan): Promise<{ findings: LintFinding[]; relinted: boolean }> {
  const recorded = await storedLint(context, runId, version);
  if (recorded === undefined) return { findings: await lintForReview(context, plan), relinted: false };
  let fingerprint: string | undefined;
  try {
    fingerprint = (await workspaceRepoMap(context)).fingerprint;
  } catch (error) {
    if (context.io.interrupt.aborted) throw error;
    // No scan to compare with: the recorded findings are the best answer there is.
    return { findings: recorded, relinted: false };
  }
  if (await lintBasisHolds(context.workspace, plan, recorded, fingerprint)) return { findings: recorded, relinted: false };
  const findings = await lintForReview(context, plan);
  return { findings, relinted: !sameFindings(findings, recorded) };
}

function sameFindings(left: readonly LintFinding[], right: readonly LintFinding[]): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/** The findings recorded with a plan version (`plan/created`, `plan/amended`), when it has them. */
async function storedLint(context: CliContext, runId: string, version: number): Promise<LintFinding[] | undefined> {
  const { db } = await context.store();
  return recordedLint(await readEvents(db, runId, { types: PLAN_LINT_EVENT_TYPES }), version);
}
