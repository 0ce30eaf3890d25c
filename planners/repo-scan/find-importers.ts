import { DagentError } from '../../engine/index.js';
import { parseSymbolKey, symbolKey, type RepoMap, type SymbolImporter } from './repo-map.js';

export type UnknownSymbolReason = 'malformed' | 'unknown-file' | 'not-exported';

/** `dagent scan --importers FILE#SYMBOL` named something the scan does not know. */
export class UnknownSymbolError extends DagentError {
  constructor(
    readonly symbol: string,
    readonly reason: UnknownSymbolReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The files that use a symbol, with their import lines: `findImporters(map, 'src/shape.ts#Shape')`.
 * A re-exported name asks for the symbol it stands for, so `src/index.ts#Round` answers for
 * `src/circle.ts#Circle` — every importer of the class, by whichever name. Throws
 * `UnknownSymbolError` for a malformed key, a file not in the map or a name it does not export.
 */
export function findImporters(map: RepoMap, symbol: string): readonly SymbolImporter[] {
  return map.importers[resolveSymbol(map, symbol)] ?? [];
}

/** The declared symbol (`file#name`) a key stands for, after re-exports. */
export function resolveSymbol(map: RepoMap, symbol: string): string {
  const parsed = parseSymbolKey(symbol);
  if (parsed === undefined) {
    throw new UnknownSymbolError(symbol, 'malformed', `"${symbol}" is not FILE#SYMBOL: write the file's workspace path, "#", and the exported name, e.g. src/shape.ts#Shape`);
  }
  const path = normalizeWorkspacePath(parsed.file);
  const file = map.files.find((candidate) => candidate.path === path);
  if (file === undefined) {
    throw new UnknownSymbolError(symbol, 'unknown-file', `${path} is not in the repository scan: give its path from the workspace root (ignored files are not scanned)`);
  }
  const key = symbolKey(path, parsed.name);
  if (!file.exports.includes(parsed.name) && map.importers[key] === undefined) {
    const known = file.exports.length === 0 ? 'it exports nothing the scan can see' : `it exports ${file.exports.join(', ')}`;
    throw new UnknownSymbolError(symbol, 'not-exported', `${path} does not export "${parsed.name}": ${known}`);
  }
  return map.aliases[key] ?? key;
}

/** `./src\\a.ts` → `src/a.ts`. */
export function normalizeWorkspacePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
}
