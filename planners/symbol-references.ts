import type { WorkspaceLanguageService } from './language-service/index.js';
import { findImporters, normalizeWorkspacePath, parseSymbolKey, UnknownSymbolError, type RepoMap, type SymbolImporter } from './repo-scan/index.js';

/**
 * The files that use a symbol, `FILE#Name` or `FILE#Class.member`. An exported name is answered
 * from the import graph (named, default and namespace imports, nested namespace chains, namespace
 * objects, re-export barrels, augmentations), which agrees with the language service's
 * find-references for exported names and needs no compiler. A member — or a name the graph does
 * not see exported — is answered by the language service, which also finds the files that reach
 * a member through inferred types, subclasses, implemented interfaces and destructuring; the
 * import graph chooses which files it loads. One entry per file, with its first referencing line.
 */
export async function findSymbolReferences(map: RepoMap, symbol: string, languageService: () => WorkspaceLanguageService): Promise<SymbolImporter[]> {
  const parsed = parseSymbolKey(symbol);
  if (parsed === undefined || !parsed.name.includes('.')) {
    try {
      return [...findImporters(map, symbol)];
    } catch (error) {
      if (!(error instanceof UnknownSymbolError) || error.reason !== 'not-exported') throw error;
    }
  }
  const key = parsed === undefined ? symbol : `${normalizeWorkspacePath(parsed.file)}#${parsed.name}`;
  const name = parsed?.name ?? symbol;
  const files = await languageService().referencingFiles({ symbol: key });
  return files
    .sort((left, right) => (left.file < right.file ? -1 : left.file > right.file ? 1 : 0))
    .map((entry) => ({ symbol: key, file: entry.file, line: entry.line, text: entry.text, name, via: [], kind: 'reference', typeOnly: false }));
}
