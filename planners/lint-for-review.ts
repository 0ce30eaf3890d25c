import { errorMessage, type LintFinding } from '../engine/index.js';
import type { WorkspaceLanguageService } from './language-service/index.js';
import { lintPlanWithReferences } from './lint-plan-with-references.js';
import type { LintablePlan } from './lintable-plan.js';
import { listedFilesMap } from './listed-files-map.js';
import { lintPlan, type LintOptions } from './plan-lint.js';
import type { RepoMap } from './repo-scan/index.js';

export interface LintForReviewInput {
  readonly workspace: string;
  readonly plan: LintablePlan;
  /** The repository scan to lint against (the caller may share one); rejects when the scan fails. */
  readonly scan: () => Promise<RepoMap>;
  /** The language service that finds the users of changed members; asked for only once the scan succeeded. */
  readonly languageService: () => Promise<WorkspaceLanguageService>;
  /** Which codes are errors (the config's `lint.errors`), and how unordered writers of one file are taken (the plan rules'). */
  readonly options?: Pick<LintOptions, 'errors' | 'parallelWrites'>;
  /** When it has aborted, a failed scan is the abort: its error is thrown instead of falling back. */
  readonly signal: AbortSignal;
  /** The listing lint falls back on when the scan fails (default `listedFilesMap`). */
  readonly listFiles?: (workspace: string) => Promise<RepoMap>;
}

export interface ReviewLint {
  readonly findings: LintFinding[];
  /** The fingerprint of the scan the findings were computed on; none when the scan failed or had none. */
  readonly fingerprint?: string;
}

/**
 * Plan lint for review: against the repository scan, with the language service for changed
 * members. A lint problem never fails the caller: when the scan fails, the plan is checked against
 * a plain file listing (missing files, untested edits) and a `scan-failed` warning says what was
 * skipped; when the listing fails too, the warning is all there is.
 */
export async function lintForReview(input: LintForReviewInput): Promise<ReviewLint> {
  const options = input.options ?? {};
  let map: RepoMap;
  try {
    map = await input.scan();
  } catch (error) {
    if (input.signal.aborted) throw error;
    const scanFailed: LintFinding = {
      level: 'warning',
      code: 'scan-failed',
      message: `the repository scan failed (${errorMessage(error)}): lint checked only that the plan's files exist, not who imports them`,
    };
    const listed = await listingOrNone(input.listFiles ?? listedFilesMap, input.workspace);
    return { findings: listed === undefined ? [scanFailed] : [scanFailed, ...lintPlan(input.plan, listed, options)] };
  }
  const languageService = await input.languageService();
  const findings = await lintPlanWithReferences(input.plan, map, { ...options, languageService: () => languageService });
  return { findings, ...(map.fingerprint === undefined ? {} : { fingerprint: map.fingerprint }) };
}

async function listingOrNone(listFiles: (workspace: string) => Promise<RepoMap>, workspace: string): Promise<RepoMap | undefined> {
  try {
    return await listFiles(workspace);
  } catch {
    // The scan-failed warning already says lint could not look at the repository.
    return undefined;
  }
}
