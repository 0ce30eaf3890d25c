import { isAbsolute, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { normalizeWorkspacePath, parseSymbolKey, scanRepository } from '../repo-scan/index.js';
import type {
  CallHierarchy,
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
import { apiSignatureOf } from './api-signature.js';
import { diagnosticMessage, diagnosticSeverity, fileDiagnostics } from './file-diagnostics.js';
import { createImportReach } from './import-reach.js';
import { LanguageServiceQueryError } from './language-service-query-error.js';
import type { ReferencesBasis } from './member-answer-cache.js';
import { isKinGroup, nodeAt } from './member-kin.js';
import { createProjectService, type ProjectService } from './project-service.js';
import { declarationName, resolveSymbolPath } from './symbol-path.js';
import { loadWorkspaceProjects } from './workspace-projects.js';

const MAX_TEXT = 200;
const DEFAULT_SYMBOL_LIMIT = 50;
/** Rounds of find-references, each with the importers of newly found declaring files loaded. */
const MAX_REFERENCE_ROUNDS = 8;

/** The language service with what the member-answer cache needs: what an answer was computed from. */
export interface CacheableLanguageService extends WorkspaceLanguageService {
  referencingFilesWithBasis(target: CodeTarget): Promise<{ files: ReferencingFile[]; basis: ReferencesBasis }>;
}

/** The language service itself, loaded by `createLanguageService` on its first query. */
export function openLanguageService(options: LanguageServiceOptions): CacheableLanguageService {
  return new TypeScriptLanguageService(options);
}

/** Where a target points: the project that answers, the file, the offset (and, for a symbol key, the symbol). */
interface Located {
  readonly service: ProjectService;
  readonly fileName: string;
  readonly position: number;
  readonly symbol?: ts.Symbol;
}

class TypeScriptLanguageService implements CacheableLanguageService {
  readonly #workspace: string;
  readonly #warnings: readonly string[];
  readonly #services: ProjectService[];
  readonly #reach: (fileNames: Iterable<string>) => Promise<Set<string>>;

  constructor(options: LanguageServiceOptions) {
    const workspace = options.workspace;
    this.#workspace = workspace;
    const loaded = loadWorkspaceProjects(workspace, options.tsconfig);
    this.#warnings = loaded.warnings;
    const registry = ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames, workspace);
    this.#services = loaded.projects.map((project) => createProjectService(workspace, project, registry));
    // Without a provider, each query asks the (cached) scan: a file created since the last query is in the graph.
    const loadMap = options.repoMap ?? (() => scanRepository(workspace, options.tsconfig === undefined ? {} : { tsconfig: options.tsconfig }));
    this.#reach = createImportReach(workspace, loadMap);
  }

  async warnings(): Promise<readonly string[]> {
    return this.#warnings;
  }

  async definition(target: CodeTarget): Promise<CodeLocation[]> {
    this.#refresh();
    const { service, fileName, position } = this.#locate(target);
    const program = service.program();
    return (service.service.getDefinitionAtPosition(fileName, position) ?? []).map((definition) => this.#location(program, definition.fileName, definition.textSpan.start));
  }

  /**
   * Find-references with just enough files loaded: the importers (transitively) of every file
   * that declares the symbol or a symbol it is tied to (a base class member, an implemented
   * interface member); repeated until no new declaring file appears.
   */
  async references(target: CodeTarget): Promise<ReferenceLocation[]> {
    return this.#references(target, false);
  }

  /** `references`; with `kinOnly`, without the groups of sibling implementations (`isKinGroup`); the declaring files found go to `declaring`. */
  async #references(target: CodeTarget, kinOnly: boolean, declaring = new Set<string>()): Promise<ReferenceLocation[]> {
    this.#refresh();
    let start = this.#locate(target);
    declaring.add(start.fileName);
    if (!('symbol' in target)) {
      for (const definition of start.service.service.getDefinitionAtPosition(start.fileName, start.position) ?? []) declaring.add(definition.fileName);
    }
    const found = new Map<string, ReferenceLocation>();
    for (let round = 0; round < MAX_REFERENCE_ROUNDS; round += 1) {
      this.#addRoots(await this.#reach(declaring));
      start = 'symbol' in target ? this.#locate(target) : start;
      found.clear();
      if (!this.#collectReferences(start, declaring, found, kinOnly)) break;
    }
    return [...found.values()].sort((left, right) => (left.file !== right.file ? (left.file < right.file ? -1 : 1) : left.line - right.line || left.column - right.column));
  }

  async referencingFiles(target: CodeTarget): Promise<ReferencingFile[]> {
    return this.#referencingFiles(target, new Set());
  }

  /** `referencingFiles`, with the files every program held (their text and signature) and the declaring files. */
  async referencingFilesWithBasis(target: CodeTarget): Promise<{ files: ReferencingFile[]; basis: ReferencesBasis }> {
    const declaring = new Set<string>();
    const files = await this.#referencingFiles(target, declaring);
    const sources = new Map<string, ReferencesBasis['sources'][number]>();
    for (const service of this.#services) {
      for (const sourceFile of service.program().getSourceFiles()) {
        if (sources.has(sourceFile.fileName)) continue;
        const signature = this.#inWorkspace(sourceFile.fileName) ? { signature: apiSignatureOf(sourceFile) } : {};
        sources.set(sourceFile.fileName, { fileName: sourceFile.fileName, text: sourceFile.text, ...signature });
      }
    }
    return { files, basis: { sources: [...sources.values()], declaring: [...declaring] } };
  }

  async #referencingFiles(target: CodeTarget, declaring: Set<string>): Promise<ReferencingFile[]> {
    const declaringFile = 'symbol' in target ? this.#absolute(parseSymbolKey(target.symbol)?.file ?? target.symbol) : undefined;
    const byFile = new Map<string, ReferencingFile>();
    for (const reference of await this.#references(target, true, declaring)) {
      if (isAbsolute(reference.file) || (declaringFile !== undefined && join(this.#workspace, reference.file) === declaringFile)) continue;
      const known = byFile.get(reference.file);
      if (known === undefined) byFile.set(reference.file, { file: reference.file, line: reference.line, text: reference.text, count: 1 });
      else byFile.set(reference.file, { ...known, count: known.count + 1 });
    }
    return [...byFile.values()];
  }

  async workspaceSymbols(query: string, limit = DEFAULT_SYMBOL_LIMIT): Promise<WorkspaceSymbol[]> {
    this.#refresh();
    const symbols = new Map<string, WorkspaceSymbol>();
    for (const service of this.#services) {
      service.loadAll();
      const program = service.program();
      for (const item of service.service.getNavigateToItems(query, limit, undefined, true)) {
        if (!this.#inWorkspace(item.fileName)) continue;
        const key = `${item.fileName}\0${item.textSpan.start}`;
        if (!symbols.has(key)) symbols.set(key, { ...this.#location(program, item.fileName, item.textSpan.start), name: item.name, kind: item.kind, container: item.containerName });
      }
    }
    return [...symbols.values()].slice(0, limit);
  }

  async hover(target: CodeTarget): Promise<HoverInfo | undefined> {
    this.#refresh();
    const { service, fileName, position } = this.#locate(target);
    const program = service.program();
    const info = service.service.getQuickInfoAtPosition(fileName, position);
    if (info === undefined) return undefined;
    return {
      ...this.#location(program, fileName, info.textSpan.start),
      signature: ts.displayPartsToString(info.displayParts),
      documentation: ts.displayPartsToString(info.documentation),
    };
  }

  async diagnostics(files?: readonly string[]): Promise<CodeDiagnostic[]> {
    this.#refresh();
    const wanted = new Map<string, ProjectService>();
    if (files !== undefined && files.length > 0) {
      for (const file of files) {
        const fileName = this.#checkFile(file);
        const [service] = this.#servicesFor(fileName);
        if (service === undefined) throw new LanguageServiceQueryError(file, 'unknown-file', `no TypeScript project covers ${file}`);
        service.addRoots([fileName]);
        wanted.set(fileName, service);
      }
    } else {
      for (const service of this.#services) {
        service.loadAll();
        for (const fileName of service.project.fileNames) if (!wanted.has(fileName) && this.#inWorkspace(fileName) && !/\.d\.[cm]?ts$/.test(fileName)) wanted.set(fileName, service);
      }
    }
    const found: CodeDiagnostic[] = [];
    for (const [fileName, service] of wanted) {
      const program = service.program();
      if (program.getSourceFile(fileName) === undefined) throw new LanguageServiceQueryError(this.#shown(fileName), 'unknown-file', `${this.#shown(fileName)} is not a TypeScript or JavaScript file the project loads`);
      for (const diagnostic of fileDiagnostics(service.service, fileName)) {
        const location = this.#location(program, diagnostic.file?.fileName ?? fileName, diagnostic.start ?? 0);
        found.push({ ...location, severity: diagnosticSeverity(diagnostic), code: diagnostic.code, message: diagnosticMessage(diagnostic) });
      }
    }
    return found.sort((left, right) => (left.file !== right.file ? (left.file < right.file ? -1 : 1) : left.line - right.line || left.column - right.column));
  }

  async callHierarchy(target: CodeTarget, direction: 'incoming' | 'outgoing'): Promise<CallHierarchy | undefined> {
    this.#refresh();
    const start = this.#locate(target);
    const prepared = start.service.service.prepareCallHierarchy(start.fileName, start.position);
    const item = Array.isArray(prepared) ? prepared[0] : prepared;
    if (item === undefined) return undefined;
    if (direction === 'incoming') this.#addRoots(await this.#reach([item.file]));
    const service = this.#servicesFor(item.file)[0] ?? start.service;
    const position = item.selectionSpan.start;
    const calls =
      direction === 'incoming'
        ? service.service.provideCallHierarchyIncomingCalls(item.file, position).map((call) => ({ from: call.from, file: call.from.file, spans: call.fromSpans }))
        : service.service.provideCallHierarchyOutgoingCalls(item.file, position).map((call) => ({ from: call.to, file: item.file, spans: call.fromSpans }));
    const program = service.program();
    return {
      item: this.#callItem(program, item),
      calls: calls.map((call) => ({ ...this.#callItem(program, call.from), sites: call.spans.map((span) => this.#location(program, call.file, span.start)) })),
    };
  }

  dispose(): void {
    for (const service of this.#services) service.service.dispose();
  }

  /** One round of find-references in every project that loads the start file; says whether a new declaring file appeared. */
  #collectReferences(start: Located, declaring: Set<string>, found: Map<string, ReferenceLocation>, kinOnly: boolean): boolean {
    let grew = false;
    for (const service of this.#services) {
      const program = service.program();
      const startFile = program.getSourceFile(start.fileName);
      if (startFile === undefined) continue;
      const startNode = nodeAt(startFile, start.position);
      for (const group of service.service.findReferences(start.fileName, start.position) ?? []) {
        const definitionFile = program.getSourceFile(group.definition.fileName);
        if (kinOnly && definitionFile !== undefined && !isKinGroup(program.getTypeChecker(), startNode, nodeAt(definitionFile, group.definition.textSpan.start))) continue;
        const symbol = group.definition.displayParts.map((part) => part.text).join('');
        if (!declaring.has(group.definition.fileName) && this.#inWorkspace(group.definition.fileName)) {
          declaring.add(group.definition.fileName);
          grew = true;
        }
        for (const reference of group.references) {
          const key = `${reference.fileName}\0${reference.textSpan.start}`;
          if (found.has(key)) continue;
          found.set(key, {
            ...this.#location(program, reference.fileName, reference.textSpan.start),
            isDefinition: reference.isDefinition === true || (reference.fileName === group.definition.fileName && reference.textSpan.start === group.definition.textSpan.start),
            isWrite: reference.isWriteAccess,
            symbol,
          });
        }
      }
    }
    return grew;
  }

  /** The projects that own a file; the first project adopts a file no project owns. */
  #servicesFor(fileName: string): ProjectService[] {
    const owners = this.#services.filter((service) => service.owns(fileName));
    if (owners.length > 0) return owners;
    const first = this.#services[0];
    return first === undefined ? [] : [first];
  }

  /** Each file goes to the projects that own it; one no project owns (created since the projects were read) to the first. */
  #addRoots(fileNames: Iterable<string>): void {
    const files = [...fileNames];
    const services = this.#services;
    for (const [index, service] of services.entries()) {
      service.addRoots(files.filter((fileName) => service.owns(fileName) || (index === 0 && !services.some((other) => other.owns(fileName)))));
    }
  }

  /** Once per query: files edited since the last one are read again. */
  #refresh(): void {
    for (const service of this.#services) service.refresh();
  }

  #checkFile(file: string): string {
    const fileName = this.#absolute(file);
    if (!this.#inWorkspace(fileName)) throw new LanguageServiceQueryError(file, 'unknown-file', `${file} is outside the workspace`);
    if (!ts.sys.fileExists(fileName)) throw new LanguageServiceQueryError(file, 'unknown-file', `${file} does not exist in the workspace`);
    return fileName;
  }

  /** The service and offset a target points at; loads the target's file. */
  #locate(target: CodeTarget): Located {
    if ('symbol' in target) return this.#locateSymbol(target.symbol);
    const fileName = this.#checkFile(target.file);
    const [service] = this.#servicesFor(fileName);
    if (service === undefined) throw new LanguageServiceQueryError(target.file, 'unknown-file', `no TypeScript project covers ${target.file}`);
    service.addRoots([fileName]);
    const sourceFile = service.program().getSourceFile(fileName);
    if (sourceFile === undefined) throw new LanguageServiceQueryError(target.file, 'unknown-file', `${target.file} is not a TypeScript or JavaScript file the project loads`);
    const lineCount = sourceFile.getLineStarts().length;
    if (!Number.isInteger(target.line) || target.line < 1 || target.line > lineCount) {
      throw new LanguageServiceQueryError(target.file, 'malformed', `line ${target.line} is outside ${target.file} (1–${lineCount})`);
    }
    const lineStart = sourceFile.getLineStarts()[target.line - 1] ?? 0;
    const lineEnd = sourceFile.getLineEndOfPosition(lineStart);
    const column = Math.max(1, Math.min(target.column, lineEnd - lineStart + 1));
    return { service, fileName, position: lineStart + column - 1 };
  }

  #locateSymbol(key: string): Located & { readonly symbol: ts.Symbol } {
    const parsed = parseSymbolKey(key);
    if (parsed === undefined) {
      throw new LanguageServiceQueryError(key, 'malformed', `"${key}" is not FILE#SYMBOL: write the file's workspace path, "#", and the name, e.g. src/invoice.ts#Invoice.total`);
    }
    const fileName = this.#checkFile(parsed.file);
    const path = parsed.name.split('.');
    for (const service of this.#servicesFor(fileName)) {
      service.addRoots([fileName]);
      const program = service.program();
      const sourceFile = program.getSourceFile(fileName);
      if (sourceFile === undefined) continue;
      const resolved = resolveSymbolPath(program.getTypeChecker(), sourceFile, path);
      if ('missing' in resolved) {
        const known = resolved.known.length === 0 ? 'it declares nothing by that name' : `known: ${resolved.known.slice(0, 30).join(', ')}${resolved.known.length > 30 ? ', …' : ''}`;
        throw new LanguageServiceQueryError(key, 'not-exported', `${normalizeWorkspacePath(parsed.file)} has no "${resolved.missing}" (${known})`);
      }
      const name = declarationName(resolved.symbol);
      if (name === undefined) throw new LanguageServiceQueryError(key, 'not-exported', `"${parsed.name}" has no declaration TypeScript can point at`);
      return { service, fileName: name.getSourceFile().fileName, position: name.getStart(), symbol: resolved.symbol };
    }
    throw new LanguageServiceQueryError(key, 'unknown-file', `${normalizeWorkspacePath(parsed.file)} is not a TypeScript or JavaScript file the project loads`);
  }

  #location(program: ts.Program, fileName: string, position: number): CodeLocation {
    const sourceFile = program.getSourceFile(fileName);
    if (sourceFile === undefined) return { file: this.#shown(fileName), line: 1, column: 1, text: '' };
    const { line, character } = sourceFile.getLineAndCharacterOfPosition(position);
    const start = sourceFile.getLineStarts()[line] ?? 0;
    const text = sourceFile.text.slice(start, sourceFile.getLineEndOfPosition(start)).trim();
    return { file: this.#shown(fileName), line: line + 1, column: character + 1, text: text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…` };
  }

  #callItem(program: ts.Program, item: ts.CallHierarchyItem): CallHierarchyItem {
    return { ...this.#location(program, item.file, item.selectionSpan.start), name: item.name, kind: item.kind, container: item.containerName ?? '' };
  }

  #absolute(file: string): string {
    return isAbsolute(file) ? file : join(this.#workspace, normalizeWorkspacePath(file));
  }

  /** Workspace-relative with `/`, or absolute outside the workspace. */
  #shown(fileName: string): string {
    const path = relative(this.#workspace, fileName);
    return path.startsWith('..') || isAbsolute(path) ? fileName : path.split(sep).join('/');
  }

  #inWorkspace(fileName: string): boolean {
    const path = relative(this.#workspace, fileName);
    return !path.startsWith('..') && !isAbsolute(path) && !path.split(sep).includes('node_modules');
  }
}
