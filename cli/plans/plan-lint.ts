import { glob } from 'tinyglobby';
import { DagentError, currentPlan, errorMessage, readEvents } from '../../engine/read-face.js';
import type { Plan, PlanLinter, PlanLintFinding } from '../../engine/index.js';
import type { LintIssue, LintOptions, RepoMap } from '../../planners/index.js';
import type { CliContext } from '../context/cli-context.js';
import { loadPlanners, type Planners } from '../runtime/load-planners.js';
import { workspaceLanguageService } from '../runtime/workspace-language-service.js';
import { replaceWorkspaceRepoMap, workspaceRepoMap } from '../runtime/workspace-repo-map.js';
import { lintBasisHolds, rememberLintBasis } from './lint-basis.js';

/**
 * Plan lint against the repository scan; findings the config lists under `lint.errors` become
 * errors (`"all"` raises every code). A lint problem never fails the command: when the scan
 * fails, the plan is checked against a plain file listing (missing files, untested edits) and a
 * `scan-failed` warning says what was skipped.
 */
export async function lintForReview(context: CliContext, plan: Plan): Promise<PlanLintFinding[]> {
  const { lintPlan, LINT_CODES } = await loadPlanners();
  const options = lintOptions(context.config.lint?.errors, LINT_CODES);
  let map: RepoMap;
  try {
    map = await workspaceRepoMap(context);
  } catch (error) {
    if (context.io.interrupt.aborted) throw error;
    const scanFailed: PlanLintFinding = {
      level: 'warning',
      code: 'scan-failed',
      message: `the repository scan failed (${errorMessage(error)}): lint checked only that the plan's files exist, not who imports them`,
    };
    const listed = await listedFilesMap(context.workspace, await loadPlanners()).catch(() => undefined);
    return listed === undefined ? [scanFailed] : [scanFailed, ...lintPlan(plan, listed, options).map(toFinding)];
  }
  const { lintPlanWithReferences } = await loadPlanners();
  const languageService = await workspaceLanguageService(context);
  const findings = (await lintPlanWithReferences(plan, map, { ...options, languageService: () => languageService })).map(toFinding);
  await rememberLintBasis(context.workspace, plan, findings, map.fingerprint);
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
    const languageService = await workspaceLanguageService(context);
    const options = lintOptions(context.config.lint?.errors, planners.LINT_CODES);
    const findings = (await planners.lintPlanWithReferences(plan, map, { ...options, languageService: () => languageService })).map(toFinding);
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
 * for the caller to record (`plan/approved`, `run/started`).
 */
export async function checkLintGate(context: CliContext, runId: string, allowed: readonly string[] = []): Promise<string[]> {
  const { db } = await context.store();
  const stored = await currentPlan(db, runId);
  const { findings, relinted } = await currentVersionLint(context, runId, stored.version, stored.plan);
  const errors = findings.filter((finding) => finding.level === 'error');
  if (errors.length === 0) return [];
  const approvedWith = stored.status === 'approved' ? await approvalAllowances(context, runId, stored.version) : [];
  const unapproved = errors.filter((finding) => !approvedWith.includes(finding.code));
  const blocking = unapproved.filter((finding) => !allowed.includes(finding.code) && !allowed.includes('all'));
  if (blocking.length === 0) return [...new Set(unapproved.map((finding) => finding.code))].sort();
  const lines = blocking.map((finding) => `  ${finding.code}: ${finding.message}`);
  const codes = [...new Set(blocking.map((finding) => finding.code))];
  const when = relinted ? ' (linted again: the repository changed since it was planned)' : '';
  throw new DagentError(
    `plan v${stored.version} has ${blocking.length} lint ${blocking.length === 1 ? 'error' : 'errors'}${when}:\n${lines.join('\n')}\nfix the plan (dagent edit ${runId}), or allow with ${codes.map((code) => `--allow-lint ${code}`).join(' ')}`,
  );
}

/**
 * A stored version's lint for review (`show`, `plan`): the findings recorded with it, or (for a
 * version stored without them) linted now. It does not scan to check that the recorded findings
 * still hold, so a read-only command stays cheap; the gate (`checkLintGate`) does.
 */
export async function versionLint(context: CliContext, runId: string, version: number, plan: Plan): Promise<PlanLintFinding[]> {
  return (await recordedLint(context, runId, version)) ?? (await lintForReview(context, plan));
}

/**
 * A stored version's lint as it stands now: the findings recorded with it while the repository
 * scan still has the fingerprint they were computed on; else (a file edited, created or deleted
 * since, a config changed, or no findings recorded) the plan linted now.
 */
async function currentVersionLint(context: CliContext, runId: string, version: number, plan: Plan): Promise<{ findings: PlanLintFinding[]; relinted: boolean }> {
  const recorded = await recordedLint(context, runId, version);
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

function sameFindings(left: readonly PlanLintFinding[], right: readonly PlanLintFinding[]): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/** The lint codes the approval of a plan version let through (`approve --allow-lint`). */
async function approvalAllowances(context: CliContext, runId: string, version: number): Promise<readonly string[]> {
  const { db } = await context.store();
  const approvals = await readEvents(db, runId, { types: ['plan/approved'] });
  const approval = approvals.reverse().find((event) => event.type === 'plan/approved' && event.payload.version === version);
  return approval?.type === 'plan/approved' ? (approval.payload.allowedLint ?? []) : [];
}

/** The findings stored with a plan version's event, when it has them. */
async function recordedLint(context: CliContext, runId: string, version: number): Promise<PlanLintFinding[] | undefined> {
  const { db } = await context.store();
  const events = await readEvents(db, runId, { types: ['plan/created', 'plan/amended'] });
  const event = events.reverse().find((candidate) => (candidate.payload as { version?: unknown }).version === version);
  const lint = (event?.payload as { lint?: unknown } | undefined)?.lint;
  return Array.isArray(lint) ? (lint as PlanLintFinding[]) : undefined;
}

/** `lint.errors` of the config: known codes, or `all` anywhere in the list. Unknown codes are ignored. */
export function lintOptions(errors: readonly string[] | undefined, known: readonly LintIssue['code'][]): LintOptions {
  if (errors === undefined) return {};
  if (errors.includes('all')) return { errors: 'all' };
  return { errors: known.filter((code) => errors.includes(code)) };
}

function toFinding(issue: LintIssue): PlanLintFinding {
  return {
    level: issue.level,
    code: issue.code,
    message: issue.message,
    ...(issue.nodeId === undefined ? {} : { nodeId: issue.nodeId }),
    ...(issue.file === undefined ? {} : { file: issue.file }),
    ...(issue.symbol === undefined ? {} : { symbol: issue.symbol }),
    ...(issue.line === undefined ? {} : { line: issue.line }),
    ...(issue.text === undefined ? {} : { text: issue.text }),
  };
}

/**
 * A map with the workspace's files and no import graph, from a listing that skips what it cannot
 * read instead of failing. It ignores `.gitignore`, so ignored files count as present: lint may
 * miss a missing file, but never reports an existing one as missing.
 */
async function listedFilesMap(workspace: string, { ALWAYS_SKIPPED_DIRECTORIES, languageOf }: Planners): Promise<RepoMap> {
  const skipped = [...ALWAYS_SKIPPED_DIRECTORIES].map((name) => `**/${name}/**`);
  const paths = (await glob('**', { cwd: workspace, dot: true, onlyFiles: true, followSymbolicLinks: false, ignore: skipped })).sort();
  return {
    root: workspace,
    files: paths.map((path) => ({ path, size: 0, language: languageOf(path), exports: [] })),
    imports: [],
    unresolved: [],
    importers: {},
    aliases: {},
    warnings: [],
  };
}
