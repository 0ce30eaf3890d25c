import { UnknownSymbolError } from '../repo-scan/index.js';

/** Bad input to a language-service query: a file outside the workspace or not a script, a position past the end, an unknown symbol. */
export class LanguageServiceQueryError extends UnknownSymbolError {}
