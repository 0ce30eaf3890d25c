import { createHash } from 'node:crypto';
import ts from 'typescript';
import { contentHash } from './file-fingerprint.js';

/**
 * What other files can see of a TypeScript file, hashed: its text without the bodies of the
 * functions, methods and accessors whose type does not depend on their body (an annotated
 * return type, a constructor, a setter). Two versions with the same signature differ only inside
 * such bodies, so no other file's types — and no reference another file makes — can differ
 * between them. Everything else counts, comments included: a conservative test, never a lax one.
 * A JavaScript file's types come from its whole text (`this.x = ...` in a body declares `x`),
 * so its signature is its text.
 */
export function apiSignature(fileName: string, text: string): string {
  return apiSignatureOf(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false));
}

/** `apiSignature` of a file already parsed (a program's source file). */
export function apiSignatureOf(sourceFile: ts.SourceFile): string {
  const { fileName, text } = sourceFile;
  if (!/\.(?:[cm]?ts|tsx)$/.test(fileName) || /\.d\.[cm]?ts$/.test(fileName)) return contentHash(text);
  const dropped: (readonly [number, number])[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined && bodyIsPrivate(node)) {
      const body = node.body as ts.Node;
      dropped.push([body.getStart(sourceFile), body.getEnd()]);
      // The signature before the body (parameters, their defaults, the return type) still counts.
      node.forEachChild((child) => (child === body ? undefined : visit(child)));
      return;
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  const hasher = createHash('sha1');
  let from = 0;
  for (const [start, end] of dropped.sort((left, right) => left[0] - right[0])) {
    if (start < from) continue;
    hasher.update(text.slice(from, start)).update('{}');
    from = end;
  }
  return hasher.update(text.slice(from)).digest('hex').slice(0, 20);
}

/** Whether nothing outside a function-like declaration depends on its body: an annotated return type (a type predicate, an assertion) fixes its type. */
function bodyIsPrivate(node: ts.SignatureDeclaration): boolean {
  return ts.isConstructorDeclaration(node) || ts.isSetAccessorDeclaration(node) || node.type !== undefined;
}
