/**
 * The repository map: what a scan of the workspace found. Plain, readonly, JSON-friendly data —
 * the planner puts a slice of it in front of the model, plan lint checks plans against it, and
 * `dagent scan` prints it. Paths are workspace-relative with `/` separators.
 */

/** A language name by file extension (`TypeScript`, `Python`, ...), `other` when unknown. */
export type Language = string;

export interface RepoFile {
  readonly path: string;
  readonly size: number;
  readonly language: Language;
  /**
   * The names this module exports, re-exports included (`default` for a default export).
   * Empty for files that are not TypeScript or JavaScript, or too large to parse.
   */
  readonly exports: readonly string[];
}

/**
 * How one module names another: `import` (declarations, `import x = require()`, `import()` types),
 * `export` (`export { x } from`, `export * as ns from`), `export-star` (`export * from`),
 * `dynamic` (`import('...')` of a string literal), `require` (CommonJS); for a member's users,
 * `reference`: a use the language service found (a call, a property read, an override).
 */
export type ImportKind = 'import' | 'export' | 'export-star' | 'dynamic' | 'require' | 'reference';

/** One module specifier that resolved to a file of the map. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
  readonly kind: ImportKind;
  /** 1-based line of the statement. */
  readonly line: number;
  /** `import type` / `export type`: erased at run time, still broken by a rename. */
  readonly typeOnly: boolean;
}

/** A relative or aliased specifier that did not resolve to any file. Packages are not listed. */
export interface UnresolvedImport {
  readonly from: string;
  readonly specifier: string;
  readonly line: number;
}

/** A file that uses an exported symbol, and how it reaches it. */
export interface SymbolImporter {
  /** The symbol as declared: `src/shapes/shape.ts#Shape`. */
  readonly symbol: string;
  readonly file: string;
  readonly line: number;
  /** The statement's first line, trimmed. */
  readonly text: string;
  /** The name the importing statement uses (`Round` for `Circle` re-exported as `Round`). */
  readonly name: string;
  /** Barrel files passed through between the importer and the declaring file, nearest first. */
  readonly via: readonly string[];
  readonly kind: ImportKind;
  readonly typeOnly: boolean;
}

export interface RepoMap {
  /** The absolute workspace root the paths are relative to. */
  readonly root: string;
  /** Sorted by path. */
  readonly files: readonly RepoFile[];
  readonly imports: readonly ImportEdge[];
  readonly unresolved: readonly UnresolvedImport[];
  /** Importers keyed by the declared symbol (`file#name`), each list sorted by file and line. */
  readonly importers: Readonly<Record<string, readonly SymbolImporter[]>>;
  /**
   * Re-exported names to the symbol they stand for: `src/shapes/index.ts#Round` →
   * `src/shapes/circle.ts#Circle`. Declared symbols are not listed.
   */
  readonly aliases: Readonly<Record<string, string>>;
  /** What the scan could not use: a broken tsconfig, scripts too large to parse. */
  readonly warnings: readonly string[];
  /**
   * Identifies what the answer was made from: every listed file's path, size and modification
   * time, the config files and the scan's options. Two scans with the same fingerprint saw the
   * same repository; anything computed from one (plan lint) still holds for the other. Absent
   * from a map that was not made by `scanRepository`.
   */
  readonly fingerprint?: string;
}

/** `file#name`, the key of a symbol in the map. */
export function symbolKey(file: string, name: string): string {
  return `${file}#${name}`;
}

/** Splits `file#name` at the last `#`; undefined when there is no `#` or either side is empty. */
export function parseSymbolKey(key: string): { readonly file: string; readonly name: string } | undefined {
  const at = key.lastIndexOf('#');
  if (at <= 0 || at === key.length - 1) return undefined;
  return { file: key.slice(0, at), name: key.slice(at + 1) };
}
