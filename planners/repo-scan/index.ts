export { findImporters, normalizeWorkspacePath, resolveSymbol, UnknownSymbolError, type UnknownSymbolReason } from './find-importers.js';
export { findReferences, findReferencesInText, MAX_SEARCH_BYTES, type FindReferencesOptions, type TextReference } from './find-references.js';
export { isIgnored, parseGitignore, type GitignoreRules } from './gitignore-rules.js';
export { isScriptFile, languageOf } from './language-of.js';
export { ALWAYS_SKIPPED_DIRECTORIES, listWorkspaceFiles, type ListWorkspaceFilesOptions, type WorkspaceFile } from './list-workspace-files.js';
export { formatBytes, renderScanText } from './render-scan-text.js';
export {
  parseSymbolKey,
  symbolKey,
  type ImportEdge,
  type ImportKind,
  type Language,
  type RepoFile,
  type RepoMap,
  type SymbolImporter,
  type UnresolvedImport,
} from './repo-map.js';
export { scanJson, uniqueEdges, type ScanJson, type ScanJsonFile } from './scan-json.js';
export { MAX_PARSE_BYTES, scanRepository, WorkspaceNotFoundError, type ScanOptions } from './scan-repository.js';
export { configKey as scanConfigKey, MEMBER_REFERENCES_CACHE_PATH, SCAN_CACHE_PATH, writeAtomically as writeCacheFile } from './scan-cache.js';
