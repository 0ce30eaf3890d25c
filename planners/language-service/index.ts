export {
  createLanguageService,
  type CodeLocation,
  type CodeTarget,
  type HoverInfo,
  type LanguageServiceOptions,
  type ReferenceLocation,
  type ReferencingFile,
  type WorkspaceLanguageService,
  type WorkspaceSymbol,
} from './create-language-service.js';
export { LanguageServiceQueryError } from './language-service-query-error.js';
