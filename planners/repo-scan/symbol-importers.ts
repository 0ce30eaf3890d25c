import { exportOf, type ExportTable, type ExportTarget, type ResolvedModule } from './export-tables.js';
import { NAMESPACE } from './module-facts.js';
import { symbolKey, type ImportKind, type SymbolImporter } from './repo-map.js';

interface Statement {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  readonly kind: ImportKind;
  readonly typeOnly: boolean;
}

/**
 * Who uses each declared symbol, keyed `file#name`: named, default and namespace imports
 * (`ns.Shape` counts for `Shape`), `export { x } from` re-exports, destructured `require()` and
 * `await import()`, and `import('m').T` types — each followed through barrels to the declaring
 * file. `export * from` names nothing, so it makes no importer. Lists are sorted by file, then line.
 */
export function symbolImporters(modules: ReadonlyMap<string, ResolvedModule>, tables: ReadonlyMap<string, ExportTable>): Record<string, SymbolImporter[]> {
  const importers: Record<string, SymbolImporter[]> = {};
  const tableOf = (file: string): ExportTable => tables.get(file) ?? new Map();

  const add = (statement: Statement, target: ExportTarget, name: string, via: readonly string[]): void => {
    if (target.kind !== 'symbol' || target.file === statement.file) return;
    const symbol = symbolKey(target.file, target.name);
    (importers[symbol] ??= []).push({ symbol, ...statement, name, via });
  };
  /**
   * Members read off a namespace: each one that the namespace's modules export, following
   * chains through nested namespaces (`z.core.util.isPlainObject`).
   */
  const addMembers = (statement: Statement, namespace: ExportTarget, members: readonly string[]): void => {
    for (const chain of members) {
      let current: ExportTarget | undefined = namespace;
      for (const name of chain.split('.')) {
        if (current === undefined || current.kind !== 'namespace') break;
        const outer: ExportTarget = current;
        current = undefined;
        for (const file of [outer.file, ...(outer.also ?? [])]) {
          const inner = tableOf(file).get(name);
          if (inner === undefined) continue;
          current = { ...inner, via: [...outer.via, ...inner.via] };
          break;
        }
        if (current?.kind === 'symbol') add(statement, current, name, current.via);
      }
    }
  };

  for (const [file, { facts, targets }] of modules) {
    for (const use of facts.uses) {
      const module = targets[use.reference];
      if (module === undefined) continue;
      const statement = { file, line: use.line, text: use.text, kind: use.kind, typeOnly: use.typeOnly };
      if (use.importedName === NAMESPACE) {
        addMembers(statement, { kind: 'namespace', file: module, via: [] }, use.members);
        continue;
      }
      const target = exportOf(tableOf(module), module, use.importedName);
      if (target.kind === 'namespace') addMembers(statement, target, use.members);
      else add(statement, target, use.importedName, target.via);
    }
    for (const binding of facts.exports) {
      if (binding.kind !== 'reexport' || binding.throughImport || binding.importedName === NAMESPACE) continue;
      const module = targets[binding.reference];
      if (module === undefined) continue;
      const statement = { file, line: binding.line, text: binding.text, kind: 'export' as const, typeOnly: binding.typeOnly };
      const target = exportOf(tableOf(module), module, binding.importedName);
      add(statement, target, binding.importedName, target.via);
    }
  }

  for (const list of Object.values(importers)) list.sort(byFileThenLine);
  return importers;
}

/** Re-exported names and the declared symbols they stand for (`index.ts#Round` → `circle.ts#Circle`). */
export function exportAliases(tables: ReadonlyMap<string, ExportTable>): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (const [file, table] of tables) {
    for (const [name, target] of table) {
      if (target.kind === 'symbol' && (target.file !== file || target.name !== name)) aliases[symbolKey(file, name)] = symbolKey(target.file, target.name);
    }
  }
  return aliases;
}

function byFileThenLine(left: SymbolImporter, right: SymbolImporter): number {
  if (left.file !== right.file) return left.file < right.file ? -1 : 1;
  return left.line - right.line;
}
