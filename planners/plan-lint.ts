import type { RepoMap } from './repo-scan/index.js';
import { matchFiles } from './plan-lint-files.js';
import { planReachability } from './plan-lint-graph.js';
import { missingFiles, unorderedEdits, untestedEdits, unwrittenImporters, type LintContext, type LintFinding } from './plan-lint-rules.js';

/**
 * The parts of a plan node lint looks at. The plan schema's nodes satisfy it; `reads` and
 * `writes` are workspace-relative paths or globs.
 */
export interface LintPlanNode {
  readonly id: string;
  readonly kind: 'read' | 'edit' | 'command' | 'agent';
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  readonly dependsOn: readonly string[];
  readonly instructions?: string;
  readonly title?: string;
  readonly command?: string;
}

export interface LintablePlan {
  readonly nodes: readonly LintPlanNode[];
}

/**
 * - `unwritten-importer`: a file uses a symbol of a file some node writes, and no node writes it.
 * - `unordered-edits`: two nodes edit files that import one another with no dependency path between them.
 * - `missing-file`: a read or write names files that neither exist nor are created by a node.
 * - `read-before-create`: a node reads a file only a node it does not depend on creates.
 * - `untested-edit`: an edit runs with no command node (tests) after it.
 */
export type LintCode = 'unwritten-importer' | 'unordered-edits' | 'missing-file' | 'read-before-create' | 'untested-edit';

export const LINT_CODES: readonly LintCode[] = ['unwritten-importer', 'unordered-edits', 'missing-file', 'read-before-create', 'untested-edit'];

export type LintLevel = 'warning' | 'error';

/** One finding, as `dagent show --json` prints it under `lint`. */
export interface LintIssue {
  readonly level: LintLevel;
  readonly code: LintCode;
  readonly message: string;
  readonly nodeId?: string;
  readonly file?: string;
}

export interface LintOptions {
  /** Codes reported as errors instead of warnings (from the project's config), or `all`. */
  readonly errors?: readonly LintCode[] | 'all';
}

/**
 * Checks a plan against the repository map (SPEC §2.2): files that import a changed file but are
 * written by no node, edits of dependent files with no order between them, reads and writes of
 * files that do not exist, and edits no command runs after. Issues come in that order, each rule's
 * in plan order; all are warnings unless `options.errors` raises their code.
 */
export function lintPlan(plan: LintablePlan, map: RepoMap, options: LintOptions = {}): LintIssue[] {
  const context = lintContext(plan, map);
  const findings: LintFinding[] = [...unwrittenImporters(context), ...unorderedEdits(context), ...missingFiles(context), ...untestedEdits(context)];
  const errors = options.errors ?? [];
  return findings.map((finding) => ({ level: errors === 'all' || errors.includes(finding.code) ? 'error' : 'warning', ...finding }));
}

function lintContext(plan: LintablePlan, map: RepoMap): LintContext {
  const files = map.files.map((file) => file.path);
  const writtenBy = new Map<string, LintPlanNode[]>();
  for (const node of plan.nodes) {
    for (const file of new Set(node.writes.flatMap((pattern) => matchFiles(pattern, files)))) {
      const writers = writtenBy.get(file);
      if (writers === undefined) writtenBy.set(file, [node]);
      else writers.push(node);
    }
  }
  return { plan, map, files, writtenBy, reachability: planReachability(plan.nodes) };
}
