/** tools/symbols: the language-service tools (definition, references, workspace symbols, hover). */
export { createSymbolTools, SYMBOL_TOOL_NAMES, MAX_DEFINITIONS, MAX_REFERENCES, MAX_WORKSPACE_SYMBOLS } from './symbol-tools.js';
export type { NamedSymbol, SymbolHover, SymbolLocation, SymbolReference, SymbolService, SymbolServiceSource, SymbolTarget } from './symbol-service.js';
export { symbolTargetArgs, resolveSymbolTarget, type SymbolTargetArgs } from './symbol-target.js';
