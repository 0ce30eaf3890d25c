export { cachedReferencingFiles, createLanguageService } from './create-language-service.js';
export type {
  CallHierarchy,
  CallHierarchyCall,
  CallHierarchyItem,
  CodeDiagnostic,
  CodeLocation,
  CodeTarget,
  HoverInfo,
  LanguageServiceOptions,
  ReferenceLocation,
  ReferencingFile,
  WorkspaceLanguageService,
  WorkspaceSymbol,
} from './workspace-language-service.js';
export { LanguageServiceQueryError } from './language-service-query-error.js';
