import { normalizeWorkspacePath, parseSymbolKey, scanRepository, type RepoMap } from '../repo-scan/index.js';
import { cachedReferences, storeReferences, type MemberCacheInput } from './member-answer-cache.js';
import type { CacheableLanguageService } from './typescript-language-service.js';
import type { CodeTarget, LanguageServiceOptions, ReferencingFile, WorkspaceLanguageService } from './workspace-language-service.js';

/**
 * Starts nothing: TypeScript is loaded and the projects are read on the first query, so a
 * command that never asks pays nothing. Bad input to a query (a file outside the workspace, a
 * position past the end, an unknown symbol) rejects with `LanguageServiceQueryError`.
 * `referencingFiles` of a symbol key is answered from `.dagent/cache/member-references/` while
 * the files the answer was computed from have not changed in a way that matters (see
 * `cachedReferences`): TypeScript is not even loaded then.
 */
export function createLanguageService(options: LanguageServiceOptions): WorkspaceLanguageService {
  let started: Promise<CacheableLanguageService> | undefined;
  let disposed = false;
  // One scan per cached query, shared by the cache check, the service and the answer it stores.
  let queryMap: Promise<RepoMap> | undefined;
  const freshMap = options.repoMap ?? (() => scanRepository(options.workspace, options.tsconfig === undefined ? {} : { tsconfig: options.tsconfig }));
  const loadMap = (): Promise<RepoMap> => queryMap ?? freshMap();
  const service = (): Promise<CacheableLanguageService> => {
    if (disposed) return Promise.reject(new Error('the language service was disposed'));
    started ??= import('./typescript-language-service.js').then(({ openLanguageService }) => openLanguageService({ ...options, repoMap: loadMap }));
    return started;
  };
  const referencingFiles = async (target: CodeTarget): Promise<ReferencingFile[]> => {
    const input = options.cache === false ? undefined : cacheInput(options, target, loadMap);
    if (input === undefined) return (await service()).referencingFiles(target);
    queryMap = freshMap();
    try {
      // A cache that cannot be read is a miss, never a failed query.
      const cached = await cachedReferences(input).catch(() => undefined);
      if (cached !== undefined) return [...cached];
      const map = await loadMap();
      const { files, basis } = await (await service()).referencingFilesWithBasis(target);
      await storeReferences(input, files, basis, map);
      return files;
    } finally {
      queryMap = undefined;
    }
  };
  return {
    definition: async (target) => (await service()).definition(target),
    references: async (target) => (await service()).references(target),
    referencingFiles,
    workspaceSymbols: async (query, limit) => (await service()).workspaceSymbols(query, limit),
    hover: async (target) => (await service()).hover(target),
    diagnostics: async (files) => (await service()).diagnostics(files),
    callHierarchy: async (target, direction) => (await service()).callHierarchy(target, direction),
    warnings: async () => (await service()).warnings(),
    dispose() {
      disposed = true;
      // Nothing waits for the close. A service that failed to open has nothing to dispose; its error
      // already went to the query that started it, so it is not raised again here.
      void started?.then(
        (opened) => opened.dispose(),
        () => undefined,
      );
    },
  };
}

/**
 * The answer `referencingFiles` would give from `.dagent/cache/member-references/`, or undefined
 * when it would have to be computed (not a symbol key, no answer kept, or a file it depends on
 * changed in a way that matters). Loads no compiler: a process that hands the computing to a warm
 * service elsewhere asks here first.
 */
export async function cachedReferencingFiles(options: LanguageServiceOptions, target: CodeTarget): Promise<ReferencingFile[] | undefined> {
  if (options.cache === false) return undefined;
  const freshMap = options.repoMap ?? (() => scanRepository(options.workspace, options.tsconfig === undefined ? {} : { tsconfig: options.tsconfig }));
  let map: Promise<RepoMap> | undefined;
  const input = cacheInput(options, target, () => (map ??= freshMap()));
  if (input === undefined) return undefined;
  const cached = await cachedReferences(input).catch(() => undefined);
  return cached === undefined ? undefined : [...cached];
}

/** What the cache keys a query by: a well-formed symbol key, its path normalised. */
function cacheInput(options: LanguageServiceOptions, target: CodeTarget, loadMap: () => Promise<RepoMap>): MemberCacheInput | undefined {
  if (!('symbol' in target)) return undefined;
  const parsed = parseSymbolKey(target.symbol);
  if (parsed === undefined) return undefined;
  return { workspace: options.workspace, tsconfig: options.tsconfig, symbol: `${normalizeWorkspacePath(parsed.file)}#${parsed.name}`, loadMap };
}
