import { isAbsolute, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { normalizeWorkspacePath, parseSymbolKey, scanRepository, type RepoMap } from '../repo-scan/index.js';
import type { CodeLocation, CodeTarget, LanguageServiceOptions, ReferenceLocation, ReferencingFile, WorkspaceLanguageService, WorkspaceSymbol } from './workspace-language-service.js';
import { LanguageServiceQueryError } from './language-service-query-error.js';
import { createProjectService, type ProjectService } from './project-service.js';
import { declarationName, resolveSymbolPath } from './symbol-path.js';
import { loadWorkspaceProjects } from './workspace-projects.js';

const MAX_TEXT = 200;
const DEFAULT_SYMBOL_LIMIT = 50;
const REMEMBERED_REACH = 16;

/** The language service itself, loaded by `createLanguageService` on its first query. */
export function openLanguageService(options: LanguageServiceOptions): WorkspaceLanguageService {
  const workspace = options.workspace;
  const loaded = loadWorkspaceProjects(workspace, options.tsconfig);
  const registry = ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames, workspace);
  const services: ProjectService[] = loaded.projects.map((project) => createProjectService(workspace, project, registry));
  // Without a provider, each query asks the (cached) scan: a file created since the last query is in the graph.
  const loadMap = options.repoMap ?? (() => scanRepository(workspace, options.tsconfig === undefined ? {} : { tsconfig: options.tsconfig }));
  let importers: { map: RepoMap; reverse: Map<string, string[]>; reached: Map<string, Set<string>> } | undefined;

  const absolute = (file: string): string => (isAbsolute(file) ? file : join(workspace, normalizeWorkspacePath(file)));
  const shown = (fileName: string): string => {
    const path = relative(workspace, fileName);
    return path.startsWith('..') || isAbsolute(path) ? fileName : path.split(sep).join('/');
  };
  const inWorkspace = (fileName: string): boolean => {
    const path = relative(workspace, fileName);
    return !path.startsWith('..') && !isAbsolute(path) && !path.split(sep).includes('node_modules');
  };

  /**
   * Reverse import edges, absolute file names: each file to the files that import it. Asked of
   * `repoMap` on every query and rebuilt when it hands back a new map, so a rescan during a run
   * (files created by nodes) reaches the next query.
   */
  const importersOf = async (): Promise<NonNullable<typeof importers>> => {
    const map = await loadMap();
    if (importers?.map === map) return importers;
    const reverse = new Map<string, string[]>();
    for (const edge of map.imports) {
      const to = join(workspace, edge.to);
      const list = reverse.get(to);
      if (list === undefined) reverse.set(to, [join(workspace, edge.from)]);
      else list.push(join(workspace, edge.from));
    }
    importers = { map, reverse, reached: new Map() };
    return importers;
  };

  /** The files and everything that imports them, transitively; remembered for the graph it was computed on. */
  const reachingFiles = async (fileNames: Iterable<string>): Promise<Set<string>> => {
    const { reverse, reached: known } = await importersOf();
    const start = [...fileNames];
    const key = [...start].sort().join('\0');
    const remembered = known.get(key);
    if (remembered !== undefined) return remembered;
    const reached = new Set<string>();
    const queue = [...start];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      if (reached.has(next)) continue;
      reached.add(next);
      for (const importer of reverse.get(next) ?? []) if (!reached.has(importer)) queue.push(importer);
    }
    // The last few answers only: consecutive queries are mostly about the same file.
    if (known.size >= REMEMBERED_REACH) known.delete(known.keys().next().value as string);
    known.set(key, reached);
    return reached;
  };

  /** The projects that own a file; the first project adopts a file no project owns. */
  const servicesFor = (fileName: string): ProjectService[] => {
    const owners = services.filter((service) => service.owns(fileName));
    if (owners.length > 0) return owners;
    const first = services[0];
    return first === undefined ? [] : [first];
  };

  /** Each file goes to the projects that own it; one no project owns (created since the projects were read) to the first. */
  const addRoots = (fileNames: Iterable<string>): void => {
    const files = [...fileNames];
    for (const [index, service] of services.entries()) {
      service.addRoots(files.filter((fileName) => service.owns(fileName) || (index === 0 && !services.some((other) => other.owns(fileName)))));
    }
  };

  /** Once per query: files edited since the last one are read again. */
  const refresh = (): void => {
    for (const service of services) service.refresh();
  };

  const sourceFileIn = (service: ProjectService, fileName: string): ts.SourceFile | undefined => service.program().getSourceFile(fileName);

  const checkFile = (file: string): string => {
    const fileName = absolute(file);
    if (!inWorkspace(fileName)) throw new LanguageServiceQueryError(file, 'unknown-file', `${file} is outside the workspace`);
    if (!ts.sys.fileExists(fileName)) throw new LanguageServiceQueryError(file, 'unknown-file', `${file} does not exist in the workspace`);
    return fileName;
  };

  /** The service and offset a target points at; loads the target's file. */
  const locate = (target: CodeTarget): { service: ProjectService; fileName: string; position: number; symbol?: ts.Symbol } => {
    if ('symbol' in target) return locateSymbol(target.symbol);
    const fileName = checkFile(target.file);
    const [service] = servicesFor(fileName);
    if (service === undefined) throw new LanguageServiceQueryError(target.file, 'unknown-file', `no TypeScript project covers ${target.file}`);
    service.addRoots([fileName]);
    const sourceFile = sourceFileIn(service, fileName);
    if (sourceFile === undefined) throw new LanguageServiceQueryError(target.file, 'unknown-file', `${target.file} is not a TypeScript or JavaScript file the project loads`);
    const lineCount = sourceFile.getLineStarts().length;
    if (!Number.isInteger(target.line) || target.line < 1 || target.line > lineCount) {
      throw new LanguageServiceQueryError(target.file, 'malformed', `line ${target.line} is outside ${target.file} (1–${lineCount})`);
    }
    const lineStart = sourceFile.getLineStarts()[target.line - 1] ?? 0;
    const lineEnd = sourceFile.getLineEndOfPosition(lineStart);
    const column = Math.max(1, Math.min(target.column, lineEnd - lineStart + 1));
    return { service, fileName, position: lineStart + column - 1 };
  };

  const locateSymbol = (key: string): { service: ProjectService; fileName: string; position: number; symbol: ts.Symbol } => {
    const parsed = parseSymbolKey(key);
    if (parsed === undefined) {
      throw new LanguageServiceQueryError(key, 'malformed', `"${key}" is not FILE#SYMBOL: write the file's workspace path, "#", and the name, e.g. src/invoice.ts#Invoice.total`);
    }
    const fileName = checkFile(parsed.file);
    const path = parsed.name.split('.');
    for (const service of servicesFor(fileName)) {
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
  };

  const location = (program: ts.Program, fileName: string, position: number): CodeLocation => {
    const sourceFile = program.getSourceFile(fileName);
    if (sourceFile === undefined) return { file: shown(fileName), line: 1, column: 1, text: '' };
    const { line, character } = sourceFile.getLineAndCharacterOfPosition(position);
    const start = sourceFile.getLineStarts()[line] ?? 0;
    const text = sourceFile.text.slice(start, sourceFile.getLineEndOfPosition(start)).trim();
    return { file: shown(fileName), line: line + 1, column: character + 1, text: text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…` };
  };

  /**
   * Find-references with just enough files loaded: the importers (transitively) of every file
   * that declares the symbol or a symbol it is tied to (a base class member, an implemented
   * interface member); repeated until no new declaring file appears.
   */
  const findReferences = async (target: CodeTarget): Promise<ReferenceLocation[]> => {
    refresh();
    let start = locate(target);
    const declaring = new Set<string>([start.fileName]);
    if (!('symbol' in target)) {
      for (const definition of start.service.service.getDefinitionAtPosition(start.fileName, start.position) ?? []) declaring.add(definition.fileName);
    }
    const found = new Map<string, ReferenceLocation>();
    for (let round = 0; round < 8; round += 1) {
      addRoots(await reachingFiles(declaring));
      start = 'symbol' in target ? locate(target) : start;
      let grew = false;
      found.clear();
      for (const service of services) {
        const program = service.program();
        if (program.getSourceFile(start.fileName) === undefined) continue;
        for (const group of service.service.findReferences(start.fileName, start.position) ?? []) {
          const symbol = group.definition.displayParts.map((part) => part.text).join('');
          if (!declaring.has(group.definition.fileName) && inWorkspace(group.definition.fileName)) {
            declaring.add(group.definition.fileName);
            grew = true;
          }
          for (const reference of group.references) {
            const key = `${reference.fileName}\0${reference.textSpan.start}`;
            if (found.has(key)) continue;
            found.set(key, {
              ...location(program, reference.fileName, reference.textSpan.start),
              isDefinition: reference.isDefinition === true || (reference.fileName === group.definition.fileName && reference.textSpan.start === group.definition.textSpan.start),
              isWrite: reference.isWriteAccess,
              symbol,
            });
          }
        }
      }
      if (!grew) break;
    }
    return [...found.values()].sort((left, right) => (left.file !== right.file ? (left.file < right.file ? -1 : 1) : left.line - right.line || left.column - right.column));
  };

  return {
    warnings: async () => loaded.warnings,
    async definition(target) {
      refresh();
      const { service, fileName, position } = locate(target);
      const program = service.program();
      return (service.service.getDefinitionAtPosition(fileName, position) ?? []).map((definition) => location(program, definition.fileName, definition.textSpan.start));
    },
    references: findReferences,
    async referencingFiles(target) {
      const declaringFile = 'symbol' in target ? absolute(parseSymbolKey(target.symbol)?.file ?? target.symbol) : undefined;
      const byFile = new Map<string, ReferencingFile>();
      for (const reference of await findReferences(target)) {
        if (isAbsolute(reference.file) || (declaringFile !== undefined && join(workspace, reference.file) === declaringFile)) continue;
        const known = byFile.get(reference.file);
        if (known === undefined) byFile.set(reference.file, { file: reference.file, line: reference.line, text: reference.text, count: 1 });
        else byFile.set(reference.file, { ...known, count: known.count + 1 });
      }
      return [...byFile.values()];
    },
    async workspaceSymbols(query, limit = DEFAULT_SYMBOL_LIMIT) {
      refresh();
      const symbols = new Map<string, WorkspaceSymbol>();
      for (const service of services) {
        service.loadAll();
        const program = service.program();
        for (const item of service.service.getNavigateToItems(query, limit, undefined, true)) {
          if (!inWorkspace(item.fileName)) continue;
          const key = `${item.fileName}\0${item.textSpan.start}`;
          if (!symbols.has(key)) symbols.set(key, { ...location(program, item.fileName, item.textSpan.start), name: item.name, kind: item.kind, container: item.containerName });
        }
      }
      return [...symbols.values()].slice(0, limit);
    },
    async hover(target) {
      refresh();
      const { service, fileName, position } = locate(target);
      const program = service.program();
      const info = service.service.getQuickInfoAtPosition(fileName, position);
      if (info === undefined) return undefined;
      return {
        ...location(program, fileName, info.textSpan.start),
        signature: ts.displayPartsToString(info.displayParts),
        documentation: ts.displayPartsToString(info.documentation),
      };
    },
    dispose() {
      for (const service of services) service.service.dispose();
    },
  };
}
