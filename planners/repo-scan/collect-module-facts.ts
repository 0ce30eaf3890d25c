import ts from 'typescript';
import type { ImportKind } from './repo-map.js';
import { NAMESPACE, type ExportBinding, type ModuleFacts, type ModuleReference, type SymbolUse } from './module-facts.js';

const MAX_STATEMENT_TEXT = 160;
/** `require(` or `import(` anywhere (dynamic imports, import types, CommonJS). */
const MODULE_CALL_HINT = /\b(?:require|import)\s*\(/;

interface Binding {
  readonly reference: number;
  readonly importedName: string;
  readonly line: number;
  readonly text: string;
  readonly kind: ImportKind;
  readonly typeOnly: boolean;
}

/** Collects the module facts of a parsed file. `options` only decides each specifier's resolution mode. */
export function collectModuleFacts(sourceFile: ts.SourceFile, options: ts.CompilerOptions): ModuleFacts {
  return new ModuleFactsCollector(sourceFile, options).collect();
}

class ModuleFactsCollector {
  readonly #sourceFile: ts.SourceFile;
  readonly #options: ts.CompilerOptions;
  readonly #references: ModuleReference[] = [];
  readonly #exports: ExportBinding[] = [];
  readonly #stars: number[] = [];
  readonly #bindings = new Map<string, Binding>();
  readonly #members = new Map<string, Set<string>>();
  readonly #augmentations: SymbolUse[] = [];
  readonly #dynamicUses: SymbolUse[] = [];
  /** Local objects built by spreading bindings, to the bindings spread. */
  readonly #namespaceObjects = new Map<string, string[]>();

  constructor(sourceFile: ts.SourceFile, options: ts.CompilerOptions) {
    this.#sourceFile = sourceFile;
    this.#options = options;
  }

  collect(): ModuleFacts {
    const sourceFile = this.#sourceFile;
    for (const statement of sourceFile.statements) this.#statement(statement);
    // The full walk is only for calls, import types and namespace members; most files have none.
    const text = sourceFile.text;
    if (MODULE_CALL_HINT.test(text) || [...this.#bindings.keys(), ...this.#namespaceObjects.keys()].some((local) => text.includes(`${local}.`))) this.#visit(sourceFile);
    if (isJavaScript(sourceFile)) this.#exports.push(...commonJsExports(sourceFile));
    return this.#facts();
  }

  #statement(statement: ts.Statement): void {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      this.#importDeclaration(statement, statement.moduleSpecifier);
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      const literal = statement.moduleReference.expression;
      if (ts.isStringLiteralLike(literal)) {
        const reference = this.#addReference(literal, 'import', statement.isTypeOnly);
        this.#bindings.set(statement.name.text, { reference, importedName: NAMESPACE, line: this.#lineOf(statement), text: this.#statementText(statement), kind: 'import', typeOnly: statement.isTypeOnly });
      }
    } else if (ts.isModuleDeclaration(statement) && ts.isStringLiteral(statement.name) && ts.isExternalModule(this.#sourceFile)) {
      // `declare module './invoice' { interface Invoice { ... } }`: an augmentation uses the names it merges into.
      const reference = this.#addReference(statement.name, 'import', true);
      const line = this.#lineOf(statement);
      const text = this.#statementText(statement);
      for (const name of augmentedNames(statement)) this.#augmentations.push({ reference, importedName: name, members: [], line, text, kind: 'import', typeOnly: true });
    } else if (ts.isExportDeclaration(statement)) {
      this.#exportDeclaration(statement);
    } else if (ts.isExportAssignment(statement)) {
      if (statement.isExportEquals !== true) this.#exports.push({ kind: 'local', name: 'default' });
    } else {
      for (const name of exportedDeclarationNames(statement)) this.#exports.push({ kind: 'local', name });
      if (ts.isVariableStatement(statement)) this.#collectNamespaceObjects(statement);
    }
  }

  #importDeclaration(statement: ts.ImportDeclaration, specifier: ts.StringLiteral): void {
    const clause = statement.importClause;
    const typeOnly = clause?.isTypeOnly ?? false;
    const reference = this.#addReference(specifier, 'import', typeOnly);
    const base = { reference, line: this.#lineOf(statement), text: this.#statementText(statement), kind: 'import' as const };
    if (clause?.name !== undefined) this.#bindings.set(clause.name.text, { ...base, importedName: 'default', typeOnly });
    const named = clause?.namedBindings;
    if (named !== undefined && ts.isNamespaceImport(named)) this.#bindings.set(named.name.text, { ...base, importedName: NAMESPACE, typeOnly });
    if (named !== undefined && ts.isNamedImports(named)) {
      for (const element of named.elements) {
        const importedName = moduleExportName(element.propertyName ?? element.name);
        this.#bindings.set(element.name.text, { ...base, importedName, typeOnly: typeOnly || element.isTypeOnly });
      }
    }
  }

  /** `const z = { ...schemas, ...checks }`: `z.string` reads `string` off whichever namespace exports it. */
  #collectNamespaceObjects(statement: ts.VariableStatement): void {
    for (const declaration of statement.declarationList.declarations) {
      const initializer = declaration.initializer === undefined ? undefined : skipOuterParentheses(declaration.initializer);
      if (!ts.isIdentifier(declaration.name) || initializer === undefined || !ts.isObjectLiteralExpression(initializer)) continue;
      const sources = initializer.properties.flatMap((property) => (ts.isSpreadAssignment(property) && ts.isIdentifier(property.expression) ? [property.expression.text] : []));
      if (sources.length > 0) this.#namespaceObjects.set(declaration.name.text, sources);
    }
  }

  #exportDeclaration(statement: ts.ExportDeclaration): void {
    if (statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)) {
      this.#reexportFrom(statement, statement.moduleSpecifier);
      return;
    }
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause)) return;
    const line = this.#lineOf(statement);
    const text = this.#statementText(statement);
    for (const element of clause.elements) {
      const name = moduleExportName(element.name);
      const binding = this.#bindings.get(moduleExportName(element.propertyName ?? element.name));
      if (binding === undefined) {
        this.#exports.push({ kind: 'local', name });
      } else {
        const typeOnly = statement.isTypeOnly || element.isTypeOnly || binding.typeOnly;
        this.#exports.push({ kind: 'reexport', name, reference: binding.reference, importedName: binding.importedName, line, text, typeOnly, throughImport: true });
      }
    }
  }

  /** `export * from 'm'`, `export * as n from 'm'`, `export { a, b as c } from 'm'`. */
  #reexportFrom(statement: ts.ExportDeclaration, specifier: ts.StringLiteral): void {
    const line = this.#lineOf(statement);
    const text = this.#statementText(statement);
    const clause = statement.exportClause;
    const kind: ImportKind = clause === undefined ? 'export-star' : 'export';
    const reference = this.#addReference(specifier, kind, statement.isTypeOnly);
    if (clause === undefined) {
      this.#stars.push(reference);
    } else if (ts.isNamespaceExport(clause)) {
      this.#exports.push({ kind: 'reexport', name: moduleExportName(clause.name), reference, importedName: NAMESPACE, line, text, typeOnly: statement.isTypeOnly, throughImport: false });
    } else {
      for (const element of clause.elements) {
        const importedName = moduleExportName(element.propertyName ?? element.name);
        const typeOnly = statement.isTypeOnly || element.isTypeOnly;
        this.#exports.push({ kind: 'reexport', name: moduleExportName(element.name), reference, importedName, line, text, typeOnly, throughImport: false });
      }
    }
  }

  /** The walk for module calls, import types, and members read off bindings. */
  #visit(node: ts.Node): void {
    if (ts.isCallExpression(node)) {
      const call = moduleCall(node);
      if (call !== undefined) {
        const reference = this.#addReference(call.literal, call.kind, false);
        this.#collectCallBinding(node, reference, call.kind);
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const reference = this.#addReference(node.argument.literal, 'import', true);
      const path = node.qualifier === undefined ? [] : entityNamePath(node.qualifier);
      const [first, ...rest] = path;
      if (first !== undefined) {
        this.#dynamicUses.push({ reference, importedName: first, members: rest.length === 0 ? [] : [rest.join('.')], line: this.#lineOf(node), text: this.#statementText(node), kind: 'import', typeOnly: true });
      }
    } else if (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) {
      // `z.core.util.isPlainObject`: the whole chain, so nested namespaces can be followed.
      const chain = accessChain(node);
      if (chain !== undefined) this.#addMember(chain.root, chain.path.join('.'));
    }
    ts.forEachChild(node, (child) => this.#visit(child));
  }

  #addMember(local: string, member: string): void {
    const set = this.#members.get(local) ?? new Set<string>();
    set.add(member);
    this.#members.set(local, set);
  }

  /** `const { a } = require('m')`, `const m = await import('m')`, `require('m').a`. */
  #collectCallBinding(call: ts.CallExpression, reference: number, kind: ImportKind): void {
    const value = ts.isAwaitExpression(call.parent) ? call.parent : call;
    const parent = skipParentheses(value.parent);
    const line = this.#lineOf(call);
    const text = this.#statementText(call);
    if (ts.isVariableDeclaration(parent) && parent.initializer !== undefined && skipOuterParentheses(parent.initializer) === value) {
      if (ts.isIdentifier(parent.name)) {
        this.#bindings.set(parent.name.text, { reference, importedName: NAMESPACE, line, text, kind, typeOnly: false });
      } else if (ts.isObjectBindingPattern(parent.name)) {
        for (const element of parent.name.elements) {
          const property = element.propertyName ?? element.name;
          if (ts.isIdentifier(property) || ts.isStringLiteral(property)) {
            this.#dynamicUses.push({ reference, importedName: property.text, members: [], line, text, kind, typeOnly: false });
          }
        }
      }
    } else if (ts.isPropertyAccessExpression(parent) && skipOuterParentheses(parent.expression) === value) {
      this.#dynamicUses.push({ reference, importedName: parent.name.text, members: [], line, text, kind, typeOnly: false });
    }
  }

  #facts(): ModuleFacts {
    const bindings = this.#bindings;
    const namespaceObjects = this.#namespaceObjects;
    // Members read off a namespace object count as read off each namespace spread into it.
    for (const [object, sources] of namespaceObjects) {
      const read = this.#members.get(object);
      if (read === undefined) continue;
      for (const source of sources) for (const member of read) this.#addMember(source, member);
    }
    const directUses: SymbolUse[] = [];
    for (const [local, binding] of bindings) {
      directUses.push({ ...binding, members: [...(this.#members.get(local) ?? [])].sort() });
    }
    const namespaceExports = this.#exports.flatMap((binding) => {
      const sources = binding.kind === 'local' ? namespaceObjects.get(binding.name) : undefined;
      const spread = (sources ?? []).flatMap((source) => {
        const found = bindings.get(source);
        return found === undefined ? [] : [{ reference: found.reference, importedName: found.importedName }];
      });
      return spread.length === 0 ? [binding] : [{ ...binding, spreads: spread }];
    });
    return { references: this.#references, uses: [...directUses, ...this.#dynamicUses, ...this.#augmentations], exports: dedupeExports(namespaceExports), stars: this.#stars };
  }

  #lineOf(node: ts.Node): number {
    return this.#sourceFile.getLineAndCharacterOfPosition(node.getStart(this.#sourceFile)).line + 1;
  }

  #statementText(node: ts.Node): string {
    return collapse(enclosingStatement(node).getText(this.#sourceFile));
  }

  #addReference(literal: ts.StringLiteralLike, kind: ImportKind, typeOnly: boolean): number {
    this.#references.push({ specifier: literal.text, kind, line: this.#lineOf(literal), typeOnly, mode: ts.getModeForUsageLocation(this.#sourceFile, literal, this.#options) });
    return this.#references.length - 1;
  }
}

/** The exported names a declaration statement introduces (`export function f`, `export const { a, b } = ...`). */
function exportedDeclarationNames(statement: ts.Statement): string[] {
  if (!ts.canHaveModifiers(statement)) return [];
  const modifiers = ts.getModifiers(statement) ?? [];
  if (!modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) return [];
  const isDefault = modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
  if (isDefault) return ['default'];
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((declaration) => bindingNames(declaration.name));
  if (
    ts.isFunctionDeclaration(statement) ||
    ts.isClassDeclaration(statement) ||
    ts.isInterfaceDeclaration(statement) ||
    ts.isTypeAliasDeclaration(statement) ||
    ts.isEnumDeclaration(statement)
  ) {
    return statement.name === undefined ? [] : [statement.name.text];
  }
  if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name)) return [statement.name.text];
  return [];
}

/** The names an augmentation declares at its top level (`interface Invoice`, `function f`, `namespace N`). */
function augmentedNames(declaration: ts.ModuleDeclaration): string[] {
  const body = declaration.body;
  if (body === undefined || !ts.isModuleBlock(body)) return [];
  return body.statements.flatMap((statement) => {
    if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((item) => bindingNames(item.name));
    const name = (statement as { name?: ts.Node }).name;
    return name !== undefined && ts.isIdentifier(name) ? [name.text] : [];
  });
}

/** `a.b.c` (values) or `a.b.C` (types) rooted at an identifier: the root and the names after it, at most six. */
function accessChain(node: ts.PropertyAccessExpression | ts.QualifiedName): { root: string; path: string[] } | undefined {
  const path: string[] = [];
  let current: ts.Node = node;
  while (ts.isPropertyAccessExpression(current) || ts.isQualifiedName(current)) {
    if (ts.isPropertyAccessExpression(current)) {
      if (!ts.isIdentifier(current.name)) return undefined;
      path.unshift(current.name.text);
      current = current.expression;
    } else {
      path.unshift(current.right.text);
      current = current.left;
    }
  }
  if (!ts.isIdentifier(current) || path.length > 6) return undefined;
  return { root: current.text, path };
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

/** CommonJS exports: `module.exports = { a, b }`, `module.exports.a = ...`, `exports.a = ...`. */
function commonJsExports(sourceFile: ts.SourceFile): ExportBinding[] {
  const names: string[] = [];
  for (const statement of sourceFile.statements) {
    if (!ts.isExpressionStatement(statement) || !ts.isBinaryExpression(statement.expression)) continue;
    const { left, right, operatorToken } = statement.expression;
    if (operatorToken.kind !== ts.SyntaxKind.EqualsToken || !ts.isPropertyAccessExpression(left)) continue;
    if (isModuleExports(left) && ts.isObjectLiteralExpression(right)) {
      for (const property of right.properties) {
        const name = property.name;
        if (name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name))) names.push(name.text);
      }
    } else if (isModuleExports(left.expression) || (ts.isIdentifier(left.expression) && left.expression.text === 'exports')) {
      names.push(left.name.text);
    }
  }
  return names.map((name) => ({ kind: 'local', name }));
}

function isModuleExports(node: ts.Expression): boolean {
  return ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'module' && node.name.text === 'exports';
}

/** `import('m')` or `require('m')` with a single string literal. */
function moduleCall(node: ts.CallExpression): { literal: ts.StringLiteralLike; kind: ImportKind } | undefined {
  const [argument] = node.arguments;
  if (argument === undefined || !ts.isStringLiteralLike(argument)) return undefined;
  if (node.expression.kind === ts.SyntaxKind.ImportKeyword) return { literal: argument, kind: 'dynamic' };
  if (ts.isIdentifier(node.expression) && node.expression.text === 'require' && node.arguments.length === 1) return { literal: argument, kind: 'require' };
  return undefined;
}

function moduleExportName(name: ts.ModuleExportName): string {
  return name.text;
}

function entityNamePath(name: ts.EntityName): string[] {
  return ts.isIdentifier(name) ? [name.text] : [...entityNamePath(name.left), name.right.text];
}

function skipParentheses(node: ts.Node): ts.Node {
  let current = node;
  while (ts.isParenthesizedExpression(current)) current = current.parent;
  return current;
}

function skipOuterParentheses(node: ts.Expression): ts.Expression {
  let current = node;
  while (ts.isParenthesizedExpression(current)) current = current.expression;
  return current;
}

function enclosingStatement(node: ts.Node): ts.Node {
  let current = node;
  while (current.parent !== undefined && !ts.isSourceFile(current.parent) && !ts.isBlock(current.parent) && !ts.isModuleBlock(current.parent) && !ts.isCaseOrDefaultClause(current.parent)) {
    current = current.parent;
  }
  return current;
}

function collapse(text: string): string {
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length <= MAX_STATEMENT_TEXT ? single : `${single.slice(0, MAX_STATEMENT_TEXT - 1)}…`;
}

function isJavaScript(sourceFile: ts.SourceFile): boolean {
  return /\.[cm]?jsx?$/i.test(sourceFile.fileName);
}

function dedupeExports(exports: readonly ExportBinding[]): ExportBinding[] {
  const seen = new Set<string>();
  return exports.filter((binding) => {
    if (seen.has(binding.name)) return false;
    seen.add(binding.name);
    return true;
  });
}
