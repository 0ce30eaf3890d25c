import ignore from 'ignore';

/** The rules of one `.gitignore` (or `.git/info/exclude`), anchored at the folder that holds it. */
export interface GitignoreRules {
  /** The folder the patterns are relative to, workspace-relative; `''` for the root. */
  readonly base: string;
  readonly matcher: ignore.Ignore;
}

export function parseGitignore(base: string, content: string): GitignoreRules {
  return { base, matcher: ignore().add(content) };
}

/**
 * Whether git would ignore `path` (workspace-relative, `/`-separated) under the given rules,
 * listed from the root down. As in git, a deeper file's rules override a shallower one's and
 * within a file the last matching pattern wins, so `!keep.ts` re-includes a file an earlier
 * pattern ignored. The caller does not descend into ignored folders, so parent folders are not
 * re-checked here (git cannot re-include a file whose folder is excluded either).
 */
export function isIgnored(rules: readonly GitignoreRules[], path: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const { base, matcher } of rules) {
    const relative = relativeTo(base, path);
    if (relative === undefined) continue;
    const result = matcher.test(isDirectory ? `${relative}/` : relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

function relativeTo(base: string, path: string): string | undefined {
  if (base === '') return path;
  if (!path.startsWith(`${base}/`)) return undefined;
  return path.slice(base.length + 1);
}
