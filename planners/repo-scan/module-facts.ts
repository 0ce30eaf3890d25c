import type ts from 'typescript';
import type { ImportKind } from './repo-map.js';

/**
 * What one TypeScript or JavaScript file says about modules, read from its syntax tree alone:
 * the specifiers it names, the symbols it takes from them, and what it exports. Collected by
 * `collectModuleFacts`; resolving the specifiers to files and following re-exports is left to
 * `resolveExportTables` and `symbolImporters`. Plain data: the scan cache stores it as JSON.
 */
export interface ModuleFacts {
  readonly references: readonly ModuleReference[];
  readonly uses: readonly SymbolUse[];
  readonly exports: readonly ExportBinding[];
  /** Indexes into `references` of `export * from` statements, in order. */
  readonly stars: readonly number[];
}

/** One module specifier, with the resolution mode TypeScript would use for it (import or require). */
export interface ModuleReference {
  readonly specifier: string;
  readonly kind: ImportKind;
  readonly line: number;
  readonly typeOnly: boolean;
  readonly mode: ts.ResolutionMode;
}

/** `NAMESPACE`: the whole module (`import * as ns`, `const m = require(...)`). */
export const NAMESPACE = '*';

/** A symbol taken from a module: `import { Shape }`, `const { a } = require(...)`, `ns.Shape`. */
export interface SymbolUse {
  /** Index into `references`. */
  readonly reference: number;
  /** The exported name, `default`, or `NAMESPACE`. */
  readonly importedName: string;
  /**
   * Property chains read off the binding (`ns.Shape` → `Shape`, `z.core.util.f` → `core.util.f`),
   * for when it names a namespace.
   */
  readonly members: readonly string[];
  readonly line: number;
  readonly text: string;
  readonly kind: ImportKind;
  readonly typeOnly: boolean;
}

export type ExportBinding =
  | {
      readonly kind: 'local';
      readonly name: string;
      /** `export const z = { ...schemas }`: the namespaces spread into the exported object. */
      readonly spreads?: readonly { readonly reference: number; readonly importedName: string }[];
    }
  | {
      readonly kind: 'reexport';
      readonly name: string;
      /** Index into `references`. */
      readonly reference: number;
      /** The name in the other module, or `NAMESPACE` for `export * as ns from`. */
      readonly importedName: string;
      readonly line: number;
      readonly text: string;
      readonly typeOnly: boolean;
      /** `import { a } from 'm'; export { a }`: the import statement already counts as the use. */
      readonly throughImport: boolean;
    };
