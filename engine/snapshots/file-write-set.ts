import picomatch from 'picomatch';
import { keptByKey } from '../kept-by-key.js';
import { isGlobPattern } from '../plan/index.js';

/**
 * A node's write set: the paths and globs of its plan `writes`, matched against
 * workspace-relative paths (`/` separators). A literal path covers itself (a literal ending in
 * `/` covers the folder's files); a glob matches with picomatch, dotfiles included; an entry
 * starting with `!` excludes what it matches (picomatch alone would OR it in).
 */
export interface WriteSet {
  readonly patterns: readonly string[];
  covers(path: string): boolean;
}

export function createWriteSet(writes: readonly string[]): WriteSet {
  const include = writes.filter((pattern) => !pattern.startsWith('!')).map(patternMatcher);
  const exclude = writes.filter((pattern) => pattern.startsWith('!')).map((pattern) => patternMatcher(pattern.slice(1)));
  return {
    patterns: writes,
    covers: (path) => include.some((matches) => matches(path)) && !exclude.some((matches) => matches(path)),
  };
}

/** Undefined when the write set covers `path`; otherwise the refusal the model reads. */
export function writeSetRefusal(path: string, writeSet: WriteSet): string | undefined {
  if (writeSet.covers(path)) return undefined;
  const listed = writeSet.patterns.length === 0 ? 'none' : writeSet.patterns.join(', ');
  return `"${path}" is outside this node's write set (${listed}). If the plan missed this file, call report_missing_work with the file and the reason.`;
}

/** Matchers by pattern: a run builds the same write sets again and again (each node's end attributes its changes against every other node's writes). */
const patternMatcher = keptByKey(4_096, buildMatcher);

function buildMatcher(pattern: string): (path: string) => boolean {
  const normalized = pattern.replace(/^\.\//, '');
  if (isGlobPattern(normalized)) return picomatch(normalized, { dot: true });
  if (normalized.endsWith('/')) return (path) => path.startsWith(normalized);
  return (path) => path === normalized;
}
