import ts from 'typescript';

/**
 * The symbol a dotted path names in a source file: `Invoice` (an export, a top-level
 * declaration of a script, or a name the file imports: the declaration it comes from), then members — `Invoice.total` (a method or property, inherited
 * ones included), `Status.Paid` (an enum member), `Shape.area` (an interface member),
 * `schemas.string` (a namespace or an object's property), `Invoice.create` (a static).
 * Undefined when some part does not exist; `missing` says which.
 */
export function resolveSymbolPath(checker: ts.TypeChecker, sourceFile: ts.SourceFile, path: readonly string[]): { symbol: ts.Symbol } | { missing: string; known: readonly string[] } {
  const [first, ...members] = path;
  if (first === undefined) return { missing: '', known: [] };
  // The exports answer almost every query; the scope search (the globals included) only when they do not.
  let symbol = exportsOf(checker, sourceFile).get(first);
  if (symbol === undefined) {
    const topLevel = topLevelSymbols(checker, sourceFile);
    symbol = topLevel.get(first);
    if (symbol === undefined) return { missing: first, known: [...topLevel.keys()].sort() };
  }
  symbol = unalias(checker, symbol);
  for (const [index, name] of members.entries()) {
    const member = memberOf(checker, symbol, name);
    if (member === undefined) return { missing: path.slice(0, index + 2).join('.'), known: memberNames(checker, symbol) };
    symbol = unalias(checker, member);
  }
  return { symbol };
}

/** The name node of a symbol's first declaration: where find-references starts. */
export function declarationName(symbol: ts.Symbol): ts.Node | undefined {
  for (const declaration of symbol.declarations ?? []) {
    const name = ts.getNameOfDeclaration(declaration);
    if (name !== undefined) return name;
    return declaration;
  }
  return undefined;
}

function exportsOf(checker: ts.TypeChecker, sourceFile: ts.SourceFile): Map<string, ts.Symbol> {
  const symbols = new Map<string, ts.Symbol>();
  const moduleSymbol = checker.getSymbolAtLocation(sourceFile);
  if (moduleSymbol !== undefined) {
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) symbols.set(symbol.name, symbol);
  }
  return symbols;
}

function topLevelSymbols(checker: ts.TypeChecker, sourceFile: ts.SourceFile): Map<string, ts.Symbol> {
  const symbols = exportsOf(checker, sourceFile);
  // A script's declarations, a module's own non-exported ones, and the names it imports (aliases,
  // which `unalias` follows through every re-export to the declaration).
  const flags = ts.SymbolFlags.Value | ts.SymbolFlags.Type | ts.SymbolFlags.Namespace | ts.SymbolFlags.Alias;
  for (const symbol of checker.getSymbolsInScope(sourceFile, flags)) {
    if (symbols.has(symbol.name)) continue;
    if ((symbol.declarations ?? []).some((declaration) => declaration.getSourceFile() === sourceFile)) symbols.set(symbol.name, symbol);
  }
  return symbols;
}

function unalias(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol;
}

function memberOf(checker: ts.TypeChecker, symbol: ts.Symbol, name: string): ts.Symbol | undefined {
  const own = symbol.members?.get(name as ts.__String) ?? symbol.exports?.get(name as ts.__String);
  if (own !== undefined) return own;
  for (const type of typesOf(checker, symbol)) {
    const property = checker.getPropertyOfType(type, name);
    if (property !== undefined) return property;
  }
  return undefined;
}

function memberNames(checker: ts.TypeChecker, symbol: ts.Symbol): string[] {
  const names = new Set<string>();
  symbol.members?.forEach((_, name) => names.add(String(name)));
  symbol.exports?.forEach((_, name) => names.add(String(name)));
  for (const type of typesOf(checker, symbol)) for (const property of checker.getPropertiesOfType(type)) names.add(property.name);
  return [...names].filter((name) => !name.startsWith('__') && name !== 'prototype').sort();
}

/** The instance type of a class or interface, then the type of the value (statics, objects, namespaces). */
function typesOf(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Type[] {
  const types: ts.Type[] = [];
  if ((symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) !== 0) types.push(checker.getDeclaredTypeOfSymbol(symbol));
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if ((symbol.flags & ts.SymbolFlags.Value) !== 0 && declaration !== undefined) types.push(checker.getTypeOfSymbolAtLocation(symbol, declaration));
  return types;
}
