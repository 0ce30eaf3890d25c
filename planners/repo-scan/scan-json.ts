import type { Language, RepoMap, SymbolImporter } from './repo-map.js';

/** The `dagent scan --json` document (docs/operations.md, JSON output). */
export interface ScanJson {
  readonly files: readonly ScanJsonFile[];
  /** One edge per pair of files, sorted. */
  readonly imports: readonly { readonly from: string; readonly to: string }[];
  /** Present when a symbol was asked for with `--importers FILE#SYMBOL`. */
  readonly importers?: readonly SymbolImporter[];
}

export interface ScanJsonFile {
  readonly path: string;
  readonly size: number;
  readonly language: Language;
  readonly exports: readonly string[];
}

export function scanJson(map: RepoMap, importers?: readonly SymbolImporter[]): ScanJson {
  const files = map.files.map(({ path, size, language, exports }) => ({ path, size, language, exports }));
  const imports = uniqueEdges(map);
  return importers === undefined ? { files, imports } : { files, imports, importers };
}

/** The import graph as distinct `from → to` pairs, sorted by `from`, then `to`. */
export function uniqueEdges(map: RepoMap): { from: string; to: string }[] {
  const seen = new Set<string>();
  const edges: { from: string; to: string }[] = [];
  for (const { from, to } of map.imports) {
    const key = `${from}\0${to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push({ from, to });
  }
  return edges.sort((left, right) => compare(left.from, right.from) || compare(left.to, right.to));
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
