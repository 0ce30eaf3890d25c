/**
 * What the symbol tools need from a language service: the subset of the workspace's TypeScript
 * language service they call (cli/ hands in the real one; tests may hand in anything shaped so).
 */
export interface SymbolService {
  definition(target: SymbolTarget): Promise<readonly SymbolLocation[]>;
  references(target: SymbolTarget): Promise<readonly SymbolReference[]>;
  workspaceSymbols(query: string, limit?: number): Promise<readonly NamedSymbol[]>;
  hover(target: SymbolTarget): Promise<SymbolHover | undefined>;
  /** Errors and warnings of the given workspace-relative files, or of the whole project when none are given. */
  diagnostics(files?: readonly string[]): Promise<readonly SymbolDiagnostic[]>;
  /** Callers (`incoming`) or callees (`outgoing`) of the function or method at the target; undefined when it is not callable. */
  callHierarchy(target: SymbolTarget, direction: 'incoming' | 'outgoing'): Promise<SymbolCallHierarchy | undefined>;
}

/** A position (workspace-relative file, 1-based line and column) or a key `src/a.ts#Class.member`. */
export type SymbolTarget = { readonly file: string; readonly line: number; readonly column: number } | { readonly symbol: string };

/** A place in the code; `file` is workspace-relative, or absolute outside it (library declarations); `text` is its line, trimmed. */
export interface SymbolLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly text: string;
}

export interface SymbolReference extends SymbolLocation {
  readonly isDefinition: boolean;
  readonly isWrite: boolean;
}

export interface NamedSymbol extends SymbolLocation {
  readonly name: string;
  readonly kind: string;
  readonly container: string;
}

export interface SymbolHover extends SymbolLocation {
  readonly signature: string;
  readonly documentation: string;
}

export interface SymbolDiagnostic extends SymbolLocation {
  readonly severity: 'error' | 'warning';
  readonly code: number;
  readonly message: string;
}

export interface SymbolCallItem extends SymbolLocation {
  readonly name: string;
  readonly kind: string;
  readonly container: string;
}

export interface SymbolCallHierarchy {
  readonly item: SymbolCallItem;
  readonly calls: readonly (SymbolCallItem & { readonly sites: readonly SymbolLocation[] })[];
}

/**
 * The service over the workspace at `root` (the working copy, or a node's own worktree: a node reads
 * its own files), created on first use (it loads the compiler) and shared by every call there.
 */
export type SymbolServiceSource = (root: string) => Promise<SymbolService>;

/** The `provider` of the symbol tools' results: the TypeScript language service answers them. */
export const LANGUAGE_SERVICE_PROVIDER = 'typescript';
