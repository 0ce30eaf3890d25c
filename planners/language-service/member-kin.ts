import ts from 'typescript';

/**
 * Whether a find-references group belongs to the member a query started from. TypeScript groups
 * the references of a class member by the declaration they resolve to, and for a member that
 * implements an interface it also returns the interface's other implementations: asked for
 * `EmailChannel.send`, it answers with `WebhookChannel.send`'s callers too, although renaming
 * the e-mail channel's method leaves the webhook's own `send()` alone. A group is kin when its
 * declaration sits in the start member's own class or interface, in one it extends or implements
 * (its callers reach the member through that type), or in one that extends or implements it (an
 * override). A group whose declaration is not a class or interface member is always kin.
 */
export function isKinGroup(checker: ts.TypeChecker, start: ts.Node, definition: ts.Node): boolean {
  const own = containingType(start);
  const other = containingType(definition);
  if (own === undefined || other === undefined || own === other) return true;
  return ancestors(checker, own).has(other) || ancestors(checker, other).has(own);
}

/** The node at an offset of a source file: the innermost one that spans it. */
export function nodeAt(sourceFile: ts.SourceFile, position: number): ts.Node {
  let node: ts.Node = sourceFile;
  for (;;) {
    const child = node.forEachChild((candidate) => (candidate.getStart(sourceFile) <= position && position < candidate.getEnd() ? candidate : undefined));
    if (child === undefined) return node;
    node = child;
  }
}

type TypeDeclaration = ts.ClassLikeDeclaration | ts.InterfaceDeclaration;

/** The class or interface a member's name (or declaration) is declared in directly. */
function containingType(node: ts.Node): TypeDeclaration | undefined {
  const member = ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isStringLiteral(node) ? node.parent : node;
  const owner = member?.parent;
  return owner !== undefined && (ts.isClassLike(owner) || ts.isInterfaceDeclaration(owner)) ? owner : undefined;
}

/** The classes and interfaces a declaration extends or implements, transitively. */
function ancestors(checker: ts.TypeChecker, declaration: TypeDeclaration): Set<TypeDeclaration> {
  const found = new Set<TypeDeclaration>();
  const visit = (current: TypeDeclaration): void => {
    for (const clause of current.heritageClauses ?? []) {
      for (const type of clause.types) {
        let symbol = checker.getSymbolAtLocation(type.expression);
        if (symbol !== undefined && (symbol.flags & ts.SymbolFlags.Alias) !== 0) symbol = checker.getAliasedSymbol(symbol);
        for (const parent of symbol?.declarations ?? []) {
          if (!(ts.isClassLike(parent) || ts.isInterfaceDeclaration(parent)) || found.has(parent)) continue;
          found.add(parent);
          visit(parent);
        }
      }
    }
  };
  visit(declaration);
  return found;
}
