import type { LanguageServiceOptions, WorkspaceLanguageService } from './workspace-language-service.js';

/**
 * Starts nothing: TypeScript is loaded and the projects are read on the first query, so a
 * command that never asks pays nothing. Bad input to a query (a file outside the workspace, a
 * position past the end, an unknown symbol) rejects with `LanguageServiceQueryError`.
 */
export function createLanguageService(options: LanguageServiceOptions): WorkspaceLanguageService {
  let started: Promise<WorkspaceLanguageService> | undefined;
  let disposed = false;
  const service = (): Promise<WorkspaceLanguageService> => {
    if (disposed) return Promise.reject(new Error('the language service was disposed'));
    started ??= import('./typescript-language-service.js').then(({ openLanguageService }) => openLanguageService(options));
    return started;
  };
  return {
    definition: async (target) => (await service()).definition(target),
    references: async (target) => (await service()).references(target),
    referencingFiles: async (target) => (await service()).referencingFiles(target),
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

