import { DagentError } from '../errors.js';
import type { LintFinding } from './lint-finding.js';

/** What lets a plan version's lint errors through the gate. */
export interface LintGateAllowances {
  /** The codes the approval of this version let through (`plan/approved.allowedLint`). */
  readonly approvedWith: readonly string[];
  /** The codes `--allow-lint` lets through now; `all` lets every code through. */
  readonly allowed: readonly string[];
}

export interface LintGateVerdict {
  /** The errors nothing lets through: `approve` and `run` stop on them. */
  readonly blocking: readonly LintFinding[];
  /** The codes of the errors `--allow-lint` let through (sorted, once each), for the log to record. */
  readonly letThrough: readonly string[];
}

/**
 * Lint that binds: of a plan version's findings, the errors stop `approve` and `run`, except the
 * codes the version's approval let through and those `--allow-lint` (or `all`) allows now.
 * Warnings never block. Errors the approval let through are not let through again (not recorded).
 */
export function lintGateVerdict(findings: readonly LintFinding[], { approvedWith, allowed }: LintGateAllowances): LintGateVerdict {
  const unapproved = findings.filter((finding) => finding.level === 'error' && !approvedWith.includes(finding.code));
  const isAllowed = (code: string): boolean => allowed.includes('all') || allowed.includes(code);
  return {
    blocking: unapproved.filter((finding) => !isAllowed(finding.code)),
    letThrough: [...new Set(unapproved.filter((finding) => isAllowed(finding.code)).map((finding) => finding.code))].sort(),
  };
}

/** A plan version's lint errors stop `approve` or `run` (exit 2): each is named, with the flags that let it through. */
export class PlanLintBlockedError extends DagentError {
  readonly runId: string;
  readonly version: number;
  readonly blocking: readonly LintFinding[];
  /** The codes of the blocking errors, once each, in the order they were found. */
  readonly codes: readonly string[];
  /** Whether the findings come from linting again because the repository changed since the version was stored. */
  readonly relinted: boolean;

  constructor(input: { runId: string; version: number; blocking: readonly LintFinding[]; relinted: boolean }) {
    const { runId, version, blocking, relinted } = input;
    const codes = [...new Set(blocking.map((finding) => finding.code))];
    const lines = blocking.map((finding) => `  ${finding.code}: ${finding.message}`);
    const when = relinted ? ' (linted again: the repository changed since it was planned)' : '';
    super(
      `plan v${version} has ${blocking.length} lint ${blocking.length === 1 ? 'error' : 'errors'}${when}:\n${lines.join('\n')}\nfix the plan (dagent edit ${runId}), or allow with ${codes.map((code) => `--allow-lint ${code}`).join(' ')}`,
    );
    this.runId = runId;
    this.version = version;
    this.blocking = blocking;
    this.codes = codes;
    this.relinted = relinted;
  }
}
