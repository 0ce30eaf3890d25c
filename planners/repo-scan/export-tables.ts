import { NAMESPACE, type ModuleFacts } from './module-facts.js';

/** A parsed module with each of its references resolved to a workspace file (undefined: a package or unresolved). */
export interface ResolvedModule {
  readonly facts: ModuleFacts;
  /** Parallel to `facts.references`. */
  readonly targets: readonly (string | undefined)[];
}

/** What an exported name of a module stands for, after following re-exports. */
export type ExportTarget =
  | { readonly kind: 'symbol'; readonly file: string; readonly name: string; readonly via: readonly string[] }
  | {
      readonly kind: 'namespace';
      readonly file: string;
      readonly via: readonly string[];
      /** Further modules of a namespace object (`export const z = { ...a, ...b }`): their exports are its members too. */
      readonly also?: readonly string[];
    };

export type ExportTable = ReadonlyMap<string, ExportTarget>;

/**
 * Every module's exported names, each followed through `export { x as y } from`,
 * `export * from` and `export * as ns from` to the file that declares it. `via` lists the
 * barrels passed through, starting with the module itself when it is one.
 *
 * As in ECMAScript, `export *` never re-exports `default` and a module's own exports win over
 * star re-exports. A name re-exported from a package stands for a symbol of the barrel itself.
 * In a star cycle each module sees the names that were known when the cycle closed.
 */
export function resolveExportTables(modules: ReadonlyMap<string, ResolvedModule>): ReadonlyMap<string, ExportTable> {
  const tables = new Map<string, ExportTable>();
  const inProgress = new Set<string>();

  const tableOf = (file: string): ExportTable => {
    const known = tables.get(file);
    if (known !== undefined) return known;
    const module = modules.get(file);
    if (module === undefined || inProgress.has(file)) return new Map();
    inProgress.add(file);
    const table = buildTable(file, module);
    inProgress.delete(file);
    tables.set(file, table);
    return table;
  };

  const buildTable = (file: string, { facts, targets }: ResolvedModule): ExportTable => {
    const table = new Map<string, ExportTarget>();
    for (const binding of facts.exports) {
      if (binding.kind === 'local') {
        const spread = (binding.spreads ?? []).flatMap((source) => {
          const target = targets[source.reference];
          if (target === undefined) return [];
          if (source.importedName === NAMESPACE) return [target];
          const inner = exportOf(tableOf(target), target, source.importedName);
          return inner.kind === 'namespace' ? [inner.file, ...(inner.also ?? [])] : [];
        });
        const [first, ...also] = spread;
        table.set(binding.name, first === undefined ? { kind: 'symbol', file, name: binding.name, via: [] } : { kind: 'namespace', file: first, via: [file], also });
        continue;
      }
      const target = targets[binding.reference];
      if (target === undefined) {
        table.set(binding.name, { kind: 'symbol', file, name: binding.name, via: [] });
      } else if (binding.importedName === NAMESPACE) {
        table.set(binding.name, { kind: 'namespace', file: target, via: [file] });
      } else {
        const inner = exportOf(tableOf(target), target, binding.importedName);
        table.set(binding.name, { ...inner, via: [file, ...inner.via] });
      }
    }
    for (const reference of facts.stars) {
      const target = targets[reference];
      if (target === undefined) continue;
      for (const [name, inner] of tableOf(target)) {
        if (name !== 'default' && !table.has(name)) table.set(name, { ...inner, via: [file, ...inner.via] });
      }
    }
    return table;
  };

  for (const file of modules.keys()) tableOf(file);
  return tables;
}

/** The target of `name` in a module's table; a name the scan did not see exported is taken at its word. */
export function exportOf(table: ExportTable, file: string, name: string): ExportTarget {
  return table.get(name) ?? { kind: 'symbol', file, name, via: [] };
}
