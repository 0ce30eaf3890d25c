/** tools/symbols: the language-service tools (definition, references, workspace symbols, hover, diagnostics, call hierarchy). */
export { createSymbolTools, SYMBOL_TOOL_NAMES, MAX_DEFINITIONS, MAX_REFERENCES, MAX_WORKSPACE_SYMBOLS } from './symbol-tools.js';
export { createDiagnosticsTool, MAX_DIAGNOSTICS, MAX_DIAGNOSTIC_PATHS } from './diagnostics-tool.js';
export { createCallHierarchyTool, MAX_CALLS } from './call-hierarchy-tool.js';
export type { NamedSymbol, SymbolCallHierarchy, SymbolCallItem, SymbolDiagnostic, SymbolHover, SymbolLocation, SymbolReference, SymbolService, SymbolServiceSource, SymbolTarget } from './symbol-service.js';
export { symbolTargetArgs, resolveSymbolTarget, type SymbolTargetArgs } from './symbol-target.js';
