import type { LintFinding } from '../engine/index.js';
import type { WorkspaceLanguageService } from './language-service/index.js';
import { changedSymbols } from './plan-lint-changes.js';
import type { LintablePlan } from './lintable-plan.js';
import { lintPlan, type LintOptions } from './plan-lint.js';
import { parseSymbolKey, UnknownSymbolError, type RepoMap, type SymbolImporter } from './repo-scan/index.js';
import { findSymbolReferences } from './symbol-references.js';

/**
 * `lintPlan` with each changed member's users found by the language service (callers through
 * inferred types, subclasses, interfaces, destructuring), exported names by the import graph. A
 * changed symbol that does not exist (a new name, a typo in `changes`) has no users to report.
 */
export async function lintPlanWithReferences(
  plan: LintablePlan,
  map: RepoMap,
  options: Omit<LintOptions, 'references' | 'changed'> & { readonly languageService?: () => WorkspaceLanguageService } = {},
): Promise<LintFinding[]> {
  const changed = changedSymbols(plan, map);
  const references = new Map<string, readonly SymbolImporter[]>();
  for (const change of changed) {
    const isMember = parseSymbolKey(change.symbol)?.name.includes('.') === true;
    if (isMember && options.languageService === undefined) continue;
    try {
      references.set(change.symbol, await findSymbolReferences(map, change.symbol, options.languageService ?? missingService));
    } catch (error) {
      if (!(error instanceof UnknownSymbolError)) throw error;
      references.set(change.symbol, []);
    }
  }
  return lintPlan(plan, map, {
    ...(options.errors === undefined ? {} : { errors: options.errors }),
    ...(options.parallelWrites === undefined ? {} : { parallelWrites: options.parallelWrites }),
    changed,
    references,
  });
}

function missingService(): WorkspaceLanguageService {
  throw new Error('no language service to find the users of a member');
}
