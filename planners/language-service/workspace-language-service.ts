import type { RepoMap } from '../repo-scan/index.js';

/** A place in the code. `file` is workspace-relative with `/`, or absolute outside the workspace (a library's `.d.ts`). */
export interface CodeLocation {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units. */
  readonly column: number;
  /** The line, trimmed (at most 200 characters). */
  readonly text: string;
}

export interface ReferenceLocation extends CodeLocation {
  /** The declaration itself (or one of the declarations it is related to: an interface member, an override). */
  readonly isDefinition: boolean;
  readonly isWrite: boolean;
  /** How TypeScript shows the symbol the reference is to, e.g. `(method) Invoice.total(): number`. */
  readonly symbol: string;
}

export interface WorkspaceSymbol extends CodeLocation {
  readonly name: string;
  /** `class`, `method`, `function`, `interface`, ... (TypeScript's ScriptElementKind). */
  readonly kind: string;
  /** The enclosing declaration's name, empty at the top level. */
  readonly container: string;
}

export interface HoverInfo extends CodeLocation {
  /** The signature as the editor shows it, e.g. `(method) Invoice.total(): number`. */
  readonly signature: string;
  readonly documentation: string;
}

export interface CodeDiagnostic extends CodeLocation {
  readonly severity: 'error' | 'warning';
  /** TypeScript's code, e.g. 2322. */
  readonly code: number;
  readonly message: string;
}

/** A function, method or constructor in a call hierarchy. */
export interface CallHierarchyItem extends CodeLocation {
  readonly name: string;
  /** `function`, `method`, `constructor`, ... (TypeScript's ScriptElementKind). */
  readonly kind: string;
  readonly container: string;
}

/** A caller (incoming) or a callee (outgoing), with where the calls are made. */
export interface CallHierarchyCall extends CallHierarchyItem {
  /** The call expressions: in the caller's file for incoming calls, in the item's file for outgoing ones. */
  readonly sites: readonly CodeLocation[];
}

export interface CallHierarchy {
  readonly item: CallHierarchyItem;
  readonly calls: readonly CallHierarchyCall[];
}

/**
 * What a query points at: a position (1-based line and column, workspace-relative file) or a
 * symbol key, `src/invoice.ts#Invoice` or `src/invoice.ts#Invoice.total`.
 */
export type CodeTarget = { readonly file: string; readonly line: number; readonly column: number } | { readonly symbol: string };

export interface LanguageServiceOptions {
  /** The workspace root, absolute. */
  readonly workspace: string;
  /** A tsconfig to use (workspace-relative or absolute); default tsconfig.json, then jsconfig.json. */
  readonly tsconfig?: string;
  /**
   * The import graph used to choose which files the service loads for a reference query, asked
   * on every query (a new map is taken up; the same map costs nothing). Default: a scan of the
   * workspace (`scanRepository`, through its cache) per query. Pass the caller's scan when there
   * is one, and hand back a fresh one when files were created.
   */
  readonly repoMap?: () => Promise<RepoMap>;
  /**
   * Keep the answers of `referencingFiles` for a symbol key in `.dagent/cache/member-references/`
   * with the fingerprints of the files they were computed from, and answer from there while
   * those files hold (default true).
   */
  readonly cache?: boolean;
}

/**
 * TypeScript's LanguageService over the workspace, started lazily and kept warm: one per run
 * (or CLI invocation), shared by the planner's scan, plan lint and the agent's symbol tools.
 * Reference queries load only the files that can reach the symbol through the import graph
 * (importers of its declaring files, transitively), so the answer is the language service's
 * own and the cost is that of the symbol's neighbourhood, not of the repository.
 */
export interface WorkspaceLanguageService {
  /** Where the symbol at the target is declared. */
  definition(target: CodeTarget): Promise<CodeLocation[]>;
  /** Every reference to the symbol at the target, declarations included, sorted by file and position. */
  references(target: CodeTarget): Promise<ReferenceLocation[]>;
  /**
   * The workspace files that reference the symbol, except the file it is declared in, with the
   * first referencing line of each. For a member this includes files that reach it through
   * inferred types, subclasses, implemented interfaces and destructuring, but not the callers of
   * a sibling that implements the same interface with its own method.
   */
  referencingFiles(target: CodeTarget): Promise<ReferencingFile[]>;
  /** Declarations whose name matches the query (TypeScript's navigate-to: prefix, camel-case and substring matches). */
  workspaceSymbols(query: string, limit?: number): Promise<WorkspaceSymbol[]>;
  /** The type and documentation of the symbol at a position; undefined where there is none. */
  hover(target: CodeTarget): Promise<HoverInfo | undefined>;
  /**
   * TypeScript's errors and warnings (syntax and types) for the given workspace files, as they are
   * on disk now; with none given, for every file of the workspace's projects. Sorted by file and position.
   */
  diagnostics(files?: readonly string[]): Promise<CodeDiagnostic[]>;
  /**
   * The callers (`incoming`, across the files that can import it) or the callees (`outgoing`) of the
   * function or method at the target; undefined when the target is not something callable.
   */
  callHierarchy(target: CodeTarget, direction: 'incoming' | 'outgoing'): Promise<CallHierarchy | undefined>;
  /** Problems reading the tsconfig files (the service still answers with what it could load). */
  warnings(): Promise<readonly string[]>;
  dispose(): void;
}

export interface ReferencingFile {
  readonly file: string;
  /** The first reference in the file. */
  readonly line: number;
  readonly text: string;
  /** How many references the file holds. */
  readonly count: number;
}
