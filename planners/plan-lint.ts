import type { RepoMap, SymbolImporter } from './repo-scan/index.js';
import { changedSymbols, type ChangedSymbol } from './plan-lint-changes.js';
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
  /** The symbols the node changes, `src/invoice.ts#Invoice.total`; absent: inferred from its text. */
  readonly changes?: readonly string[];
}

export interface LintablePlan {
  /** The task; searched with each node's text for the symbols a node changes. */
  readonly goal?: string;
  readonly nodes: readonly LintPlanNode[];
}

/**
 * - `unwritten-importer`: a file references a symbol some node changes, and no node writes it.
 * - `unordered-edits`: two nodes edit files that import one another with no dependency path between them.
 * - `missing-file`: a read or write names files that neither exist nor are created by a node.
 * - `read-before-create`: a node reads a file only a node it does not depend on creates.
 * - `untested-edit`: an edit runs with no command node (tests) after it.
 */
export type LintCode = 'unwritten-importer' | 'unordered-edits' | 'missing-file' | 'read-before-create' | 'untested-edit';

export const LINT_CODES: readonly LintCode[] = ['unwritten-importer', 'unordered-edits', 'missing-file', 'read-before-create', 'untested-edit'];

export type LintLevel = 'warning' | 'error';

/**
 * The severity of each code unless the config raises it. A plan that reads a file nobody has or
 * makes, or leaves a user of a symbol it declares changed untouched, is wrong: an error, which
 * stops `approve` and `run` until fixed or allowed. An inferred change, an order between edits or
 * a missing test run is worth a look: a warning.
 */
export const DEFAULT_LINT_LEVELS: Readonly<Record<LintCode, LintLevel>> = {
  'unwritten-importer': 'warning',
  'unordered-edits': 'warning',
  'missing-file': 'error',
  'read-before-create': 'error',
  'untested-edit': 'warning',
};

/** One finding, as `dagent show --json` prints it under `lint`. */
export interface LintIssue {
  readonly level: LintLevel;
  readonly code: LintCode;
  readonly message: string;
  readonly nodeId?: string;
  readonly file?: string;
  /** For `unwritten-importer`: the changed symbol the file references, its line and that line's code. */
  readonly symbol?: string;
  readonly line?: number;
  readonly text?: string;
}

export interface LintOptions {
  /** Codes reported as errors instead of warnings (from the project's config), or `all`. */
  readonly errors?: readonly LintCode[] | 'all';
  /**
   * The files that reference each changed symbol (`findSymbolReferences`: the language service
   * for members). A symbol missing here is answered from the import graph: its importers, or for
   * a member the importers of its class.
   */
  readonly references?: ReadonlyMap<string, readonly SymbolImporter[]>;
  /** The changed symbols, when already worked out (`changedSymbols`). */
  readonly changed?: readonly ChangedSymbol[];
}

/**
 * Checks a plan against the repository map (SPEC §2.2): files that reference a changed symbol but
 * are written by no node, edits of dependent files with no order between them, reads and writes
 * of files that do not exist, and edits no command runs after. Issues come in that order, each
 * rule's in plan order, at their `DEFAULT_LINT_LEVELS` unless `options.errors` raises their code;
 * a file left out that uses a symbol a node's `changes` declare is an error.
 */
export function lintPlan(plan: LintablePlan, map: RepoMap, options: LintOptions = {}): LintIssue[] {
  const context = lintContext(plan, map, options);
  const findings: LintFinding[] = [...unwrittenImporters(context), ...unorderedEdits(context), ...missingFiles(context), ...untestedEdits(context)];
  const errors = options.errors ?? [];
  return findings.map(({ declared, ...finding }) => ({
    level: errors === 'all' || errors.includes(finding.code) || declared === true ? 'error' : DEFAULT_LINT_LEVELS[finding.code],
    ...finding,
  }));
}

function lintContext(plan: LintablePlan, map: RepoMap, options: LintOptions): LintContext {
  const files = map.files.map((file) => file.path);
  const writtenBy = new Map<string, LintPlanNode[]>();
  for (const node of plan.nodes) {
    for (const file of new Set(node.writes.flatMap((pattern) => matchFiles(pattern, files)))) {
      const writers = writtenBy.get(file);
      if (writers === undefined) writtenBy.set(file, [node]);
      else writers.push(node);
    }
  }
  const changed = options.changed ?? changedSymbols(plan, map);
  return { plan, map, files, writtenBy, reachability: planReachability(plan.nodes), changed, references: options.references ?? new Map() };
}
