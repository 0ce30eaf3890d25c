export {
  createLanguageService,
  LanguageServiceQueryError,
  type CodeLocation,
  type CodeTarget,
  type HoverInfo,
  type LanguageServiceOptions,
  type ReferenceLocation,
  type ReferencingFile,
  type WorkspaceLanguageService,
  type WorkspaceSymbol,
} from './create-language-service.js';
export { DEFAULT_PROJECT_OPTIONS, loadWorkspaceProjects, type WorkspaceProject, type WorkspaceProjects } from './workspace-projects.js';
export { resolveSymbolPath } from './symbol-path.js';
