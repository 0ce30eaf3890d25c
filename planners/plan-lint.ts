import type { RepoMap, SymbolImporter } from './repo-scan/index.js';
import { changedSymbols, type ChangedSymbol } from './plan-lint-changes.js';
import { matchFiles } from './plan-lint-files.js';
import { planReachability } from './plan-lint-graph.js';
import { missingFiles, unorderedEdits, unorderedWriters, untestedEdits, unwrittenImporters, type LintContext, type RuleFinding } from './plan-lint-rules.js';
import type { LintFinding } from '../engine/index.js';
import { DEFAULT_LINT_LEVELS, type LintCode } from './lint-codes.js';
import type { LintablePlan, LintPlanNode } from './lintable-plan.js';

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
  /** How the run treats unordered nodes writing one file (the plan rules' `parallelWrites`): `merge` notes each pair (`unordered-writers`). */
  readonly parallelWrites?: 'refuse' | 'merge';
}

/**
 * Checks a plan against the repository map (SPEC §2.2): files that reference a changed symbol but
 * are written by no node, edits of dependent files with no order between them, reads and writes
 * of files that do not exist, and edits no command runs after. Issues come in that order, each
 * rule's in plan order, at their `DEFAULT_LINT_LEVELS` unless `options.errors` raises their code;
 * a file left out that uses a symbol a node's `changes` declare is an error.
 */
export function lintPlan(plan: LintablePlan, map: RepoMap, options: LintOptions = {}): LintFinding[] {
  const context = lintContext(plan, map, options);
  const findings: RuleFinding[] = [
    ...unwrittenImporters(context),
    ...unorderedEdits(context),
    ...(options.parallelWrites === 'merge' ? unorderedWriters(context) : []),
    ...missingFiles(context),
    ...untestedEdits(context),
  ];
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
