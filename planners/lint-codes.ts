import type { LintLevel } from '../engine/index.js';

/**
 * - `unwritten-importer`: a file references a symbol some node changes, and no node writes it.
 * - `unordered-edits`: two nodes edit files that import one another with no dependency path between them.
 * - `missing-file`: a read or write names files that neither exist nor are created by a node.
 * - `read-before-create`: a node reads a file only a node it does not depend on creates.
 * - `untested-edit`: an edit runs with no command node (tests) after it.
 * - `unordered-writers`: two nodes no dependency orders write one file, where each runs in its own
 *   worktree (allowed: their changes merge three-way; a note of it, since the same lines conflict).
 */
export type LintCode = 'unwritten-importer' | 'unordered-edits' | 'missing-file' | 'read-before-create' | 'untested-edit' | 'unordered-writers';

export const LINT_CODES: readonly LintCode[] = ['unwritten-importer', 'unordered-edits', 'missing-file', 'read-before-create', 'untested-edit', 'unordered-writers'];


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
  'unordered-writers': 'warning',
};
