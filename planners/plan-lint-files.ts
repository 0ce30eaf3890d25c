import picomatch from 'picomatch';

/** `./src\\a.ts` → `src/a.ts`; `src/models/` → `src/models`. Plans name paths from the workspace root. */
export function normalizePlanPath(path: string): string {
  return path.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
}

export function isGlobPattern(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}

/**
 * The scanned files a read or write pattern covers: a glob matched with picomatch (dotfiles
 * included), a literal path itself, or every file under it when it names a folder.
 */
export function matchFiles(pattern: string, files: readonly string[]): string[] {
  const normalized = normalizePlanPath(pattern);
  if (normalized === '' || normalized === '.') return [...files];
  if (isGlobPattern(normalized)) {
    const isMatch = picomatch(normalized, { dot: true });
    return files.filter((file) => isMatch(file));
  }
  const prefix = `${normalized}/`;
  return files.filter((file) => file === normalized || file.startsWith(prefix));
}

/** Whether a pattern covers a path (a literal also covers the files under it). */
export function patternCovers(pattern: string, path: string): boolean {
  return matchFiles(pattern, [path]).length > 0;
}
