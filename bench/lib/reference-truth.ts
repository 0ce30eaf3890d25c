import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * TypeScript's own answer to "which files reference this symbol", for every exported symbol and
 * every public member of a workspace, computed in one pass: a plain LanguageService with the
 * whole project loaded (nothing of the scan involved), every identifier of every file asked for
 * its symbol, aliases, export symbols, spreads and other synthetic symbols followed to the
 * declared symbol, and a member related to the members it overrides or implements and to those
 * that override or implement it — the relations find-references follows. `findReferencesFiles`
 * asks the same service's real `findReferences`, to check the one-pass answer on a sample.
 */
export interface ReferenceTruth {
  /** Every exported symbol declared in a workspace file, and each public member of an exported class, interface or enum: `file#Name`, `file#Name.member`. */
  readonly symbols: readonly string[];
  /** Workspace files referencing the symbol, except the file its key names. */
  files(symbol: string): ReadonlySet<string>;
  /** The same question put to TypeScript's `findReferences`, one query. */
  findReferencesFiles(symbol: string): ReadonlySet<string>;
  dispose(): void;
}

export function buildReferenceTruth(workspace: string): ReferenceTruth {
  const configFile = join(workspace, 'tsconfig.json');
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configFile), undefined, configFile);
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: (fileName) => {
      const text = ts.sys.readFile(fileName);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => workspace,
    getCompilationSettings: () => ({ ...parsed.options, noEmit: true, skipLibCheck: true }),
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: (path) => ts.sys.fileExists(path),
    readFile: (path, encoding) => ts.sys.readFile(path, encoding),
    readDirectory: (...args) => ts.sys.readDirectory(...args),
    directoryExists: (path) => ts.sys.directoryExists(path),
    getDirectories: (path) => ts.sys.getDirectories(path),
  };
  const service = ts.createLanguageService(host);
  const program = service.getProgram();
  if (program === undefined) throw new Error('no program');
  const checker = program.getTypeChecker();
  const shown = (fileName: string): string | undefined => {
    const path = relative(workspace, fileName);
    return path.startsWith('..') || isAbsolute(path) || path.split(sep).includes('node_modules') ? undefined : path.split(sep).join('/');
  };
  const sources = program.getSourceFiles().filter((sourceFile) => !sourceFile.isDeclarationFile && shown(sourceFile.fileName) !== undefined);

  // The targets: exports declared in the file itself, then the public members of each.
  const targets = new Map<string, ts.Symbol>();
  for (const sourceFile of sources) {
    const file = shown(sourceFile.fileName) as string;
    const moduleSymbol = checker.getSymbolAtLocation(sourceFile);
    if (moduleSymbol === undefined) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = unalias(exported);
      if (!(symbol.declarations ?? []).some((declaration) => declaration.getSourceFile() === sourceFile)) continue;
      targets.set(`${file}#${exported.name}`, symbol);
      for (const [name, member] of publicMembers(symbol)) targets.set(`${file}#${exported.name}.${name}`, member);
    }
  }

  // One pass: each identifier credits its file to the declared symbols it stands for.
  const filesOf = new Map<ts.Symbol, Set<string>>();
  const credit = (symbol: ts.Symbol, file: string): void => {
    const files = filesOf.get(symbol);
    if (files === undefined) filesOf.set(symbol, new Set([file]));
    else files.add(file);
  };
  const seenProperties = new Set<ts.Symbol>();
  for (const sourceFile of sources) {
    const file = shown(sourceFile.fileName) as string;
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        const found = checker.getSymbolAtLocation(node);
        const starts = found === undefined ? [] : [found];
        if (ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node) {
          const value = checker.getShorthandAssignmentValueSymbol(node.parent);
          if (value !== undefined) starts.push(value);
        }
        for (const symbol of declaredSymbols(starts)) {
          credit(symbol, file);
          if ((symbol.flags & (ts.SymbolFlags.Property | ts.SymbolFlags.Method | ts.SymbolFlags.Accessor)) !== 0) seenProperties.add(symbol);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }

  // Overrides and implementations: a member's ancestors, and (inverted) its descendants.
  const ancestorsMemo = new Map<ts.Symbol, ts.Symbol[]>();
  const ancestors = (member: ts.Symbol): ts.Symbol[] => {
    const known = ancestorsMemo.get(member);
    if (known !== undefined) return known;
    const found = new Set<ts.Symbol>();
    ancestorsMemo.set(member, []);
    for (const declaration of member.declarations ?? []) {
      if (isStatic(declaration)) continue;
      const owner = declaration.parent;
      if (!ts.isClassLike(owner) && !ts.isInterfaceDeclaration(owner)) continue;
      for (const clause of owner.heritageClauses ?? []) {
        for (const typeNode of clause.types) {
          const base = checker.getTypeAtLocation(typeNode);
          const property = checker.getPropertyOfType(base, member.name);
          if (property === undefined) continue;
          for (const root of declaredSymbols([property])) {
            if (root === member) continue;
            found.add(root);
            for (const further of ancestors(root)) found.add(further);
          }
        }
      }
    }
    const list = [...found];
    ancestorsMemo.set(member, list);
    return list;
  };
  const descendants = new Map<ts.Symbol, Set<ts.Symbol>>();
  for (const member of new Set([...seenProperties, ...targets.values()])) {
    for (const ancestor of ancestors(member)) {
      const list = descendants.get(ancestor);
      if (list === undefined) descendants.set(ancestor, new Set([member]));
      else list.add(member);
    }
  }

  const keyFile = (symbol: string): string => symbol.slice(0, symbol.indexOf('#'));

  return {
    symbols: [...targets.keys()],
    files(symbol) {
      const target = targets.get(symbol);
      if (target === undefined) throw new Error(`${symbol} is not a target`);
      const related = [target, ...ancestors(target), ...(descendants.get(target) ?? [])];
      const files = new Set<string>();
      for (const symbol of related) for (const file of filesOf.get(symbol) ?? []) files.add(file);
      files.delete(keyFile(symbol));
      return files;
    },
    findReferencesFiles(symbol) {
      const target = targets.get(symbol);
      const name = target === undefined ? undefined : declarationName(target);
      if (name === undefined) throw new Error(`${symbol} has no declaration`);
      const files = new Set<string>();
      for (const group of service.findReferences(name.getSourceFile().fileName, name.getStart()) ?? []) {
        for (const reference of group.references) {
          const file = shown(reference.fileName);
          if (file !== undefined) files.add(file);
        }
      }
      files.delete(keyFile(symbol));
      return files;
    },
    dispose: () => service.dispose(),
  };

  function unalias(symbol: ts.Symbol): ts.Symbol {
    return (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol;
  }

  /** The declared symbols behind some symbols: aliases resolved, export symbols for locals, the origins of synthetic (spread, union, instantiated) symbols. */
  function declaredSymbols(starts: readonly ts.Symbol[]): Set<ts.Symbol> {
    const result = new Set<ts.Symbol>();
    const queue = [...starts];
    const seen = new Set<ts.Symbol>();
    for (let symbol = queue.pop(); symbol !== undefined; symbol = queue.pop()) {
      if (seen.has(symbol)) continue;
      seen.add(symbol);
      if ((symbol.flags & ts.SymbolFlags.Alias) !== 0) {
        queue.push(checker.getAliasedSymbol(symbol));
        continue;
      }
      const exported = checker.getExportSymbolOfSymbol(symbol);
      if (exported !== symbol) queue.push(exported);
      const roots = checker.getRootSymbols(symbol);
      if (roots.length === 1 && roots[0] === symbol) result.add(symbol);
      else queue.push(...roots);
    }
    return result;
  }

  /** Own public members: a class's instance and static members, an interface's members, an enum's members. */
  function publicMembers(symbol: ts.Symbol): [string, ts.Symbol][] {
    const members: [string, ts.Symbol][] = [];
    if ((symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) !== 0) {
      symbol.members?.forEach((member, name) => {
        if (String(name).startsWith('__') || !isPublic(member)) return;
        members.push([String(name), member]);
      });
    }
    if ((symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Enum)) !== 0) {
      symbol.exports?.forEach((member, name) => {
        if (name === 'prototype' || String(name).startsWith('__') || !isPublic(member)) return;
        members.push([String(name), member]);
      });
    }
    return members;
  }
}

function isPublic(member: ts.Symbol): boolean {
  return (member.declarations ?? []).every((declaration) => {
    const flags = ts.getCombinedModifierFlags(declaration as ts.Declaration);
    const name = ts.getNameOfDeclaration(declaration as ts.Declaration);
    return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0 && (name === undefined || !ts.isPrivateIdentifier(name));
  });
}

function isStatic(declaration: ts.Declaration): boolean {
  return (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Static) !== 0;
}

function declarationName(symbol: ts.Symbol): ts.Node | undefined {
  for (const declaration of symbol.declarations ?? []) return ts.getNameOfDeclaration(declaration) ?? declaration;
  return undefined;
}
