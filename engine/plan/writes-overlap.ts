import picomatch from 'picomatch';

/**
 * Whether two write patterns (paths or globs) can name the same file, decided conservatively:
 * a glob pair is called disjoint only when that is certain.
 * - two paths overlap when they are equal;
 * - a path and a glob overlap when the glob matches the path (dotfiles included);
 * - two globs overlap unless their literal prefixes (text before the first glob character)
 *   diverge, or their literal suffixes (text after the last one) do: `src/a/**` and `src/b/**`
 *   are disjoint, and so are two globs of `src/` whose names end in `.ts` and in `.css`;
 *   `src/**` and `src/api/*.ts` are not.
 */
export type WriteOverlap =
  | { readonly kind: 'same-path'; readonly file: string }
  | { readonly kind: 'path-in-glob'; readonly file: string; readonly glob: string }
  | { readonly kind: 'globs-may-intersect'; readonly globs: readonly [string, string]; readonly prefix: string };

const GLOB_CHARACTERS = new Set(['*', '?', '[', ']', '{', '}', '(', ')', '!', '+', '@', '\\']);

export function isGlobPattern(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}

export function writesOverlap(a: string, b: string): WriteOverlap | undefined {
  const aIsGlob = isGlobPattern(a);
  const bIsGlob = isGlobPattern(b);
  if (!aIsGlob && !bIsGlob) return a === b ? { kind: 'same-path', file: a } : undefined;
  if (!aIsGlob) return picomatch.isMatch(a, b, { dot: true }) ? { kind: 'path-in-glob', file: a, glob: b } : undefined;
  if (!bIsGlob) return picomatch.isMatch(b, a, { dot: true }) ? { kind: 'path-in-glob', file: b, glob: a } : undefined;
  const prefixA = literalPrefix(a);
  const prefixB = literalPrefix(b);
  if (!prefixA.startsWith(prefixB) && !prefixB.startsWith(prefixA)) return undefined;
  const suffixA = literalSuffix(a);
  const suffixB = literalSuffix(b);
  if (!suffixA.endsWith(suffixB) && !suffixB.endsWith(suffixA)) return undefined;
  return { kind: 'globs-may-intersect', globs: [a, b], prefix: prefixA.length >= prefixB.length ? prefixA : prefixB };
}

/** The text before the first glob character. */
export function literalPrefix(pattern: string): string {
  let end = 0;
  while (end < pattern.length && !GLOB_CHARACTERS.has(pattern[end]!)) end++;
  return pattern.slice(0, end);
}

/** The text after the last glob character. */
export function literalSuffix(pattern: string): string {
  let start = pattern.length;
  while (start > 0 && !GLOB_CHARACTERS.has(pattern[start - 1]!)) start--;
  return pattern.slice(start);
}
