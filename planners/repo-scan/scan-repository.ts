import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { DagentError } from '../../engine/index.js';
import { resolveExportTables, type ResolvedModule } from './export-tables.js';
import { isScriptFile, languageOf } from './language-of.js';
import { listWorkspaceFiles, type WorkspaceFile } from './list-workspace-files.js';
import { collectModuleFacts } from './module-facts.js';
import { createModuleResolver, type ModuleResolver } from './module-resolver.js';
import type { ImportEdge, RepoFile, RepoMap, UnresolvedImport } from './repo-map.js';
import { exportAliases, symbolImporters } from './symbol-importers.js';

/** Larger scripts are listed but not parsed: they are bundles or generated code, not modules anyone edits. */
export const MAX_PARSE_BYTES = 1024 * 1024;

/** How many files are read at once. */
const READ_CONCURRENCY = 64;

/** The folder to scan does not exist or is not a folder. */
export class WorkspaceNotFoundError extends DagentError {
  constructor(readonly workspace: string, cause: unknown) {
    super(`workspace ${workspace} does not exist or is not a folder: pass an existing folder with --workspace`, { cause });
  }
}

export interface ScanOptions {
  /** Workspace-relative tsconfig; default `tsconfig.json`, then `jsconfig.json`, then bundler-style defaults. */
  readonly tsconfig?: string;
  /** Extra gitignore-style patterns, anchored at the root. */
  readonly ignore?: readonly string[];
  readonly maxParseBytes?: number;
  readonly signal?: AbortSignal;
}

/**
 * Scans the workspace: its files as git sees them, with sizes and languages; for TypeScript and
 * JavaScript the import graph (resolved by TypeScript with the workspace's tsconfig), each
 * module's exports and each exported symbol's importers through barrel files.
 * Each file is parsed on its own (`ts.createSourceFile`); no type checking, no program.
 */
export async function scanRepository(root: string, options: ScanOptions = {}): Promise<RepoMap> {
  const workspace = await workspaceRoot(root);
  const listed = await listWorkspaceFiles(workspace, { ...(options.ignore === undefined ? {} : { ignore: options.ignore }), ...(options.signal === undefined ? {} : { signal: options.signal }) });
  const resolver = createModuleResolver(workspace, options.tsconfig);
  const maxParseBytes = options.maxParseBytes ?? MAX_PARSE_BYTES;
  const warnings = [...resolver.warnings];

  const paths = new Set(listed.map((file) => file.path));
  const scripts = listed.filter((file) => isScriptFile(file.path));
  for (const file of scripts) if (file.size > maxParseBytes) warnings.push(`${file.path}: ${file.size} bytes, larger than ${maxParseBytes}; listed but not parsed`);

  const modules = new Map<string, ResolvedModule>();
  const imports: ImportEdge[] = [];
  const unresolved: UnresolvedImport[] = [];
  const parseable = scripts.filter((file) => file.size <= maxParseBytes);
  for (let start = 0; start < parseable.length; start += READ_CONCURRENCY) {
    options.signal?.throwIfAborted();
    const batch = parseable.slice(start, start + READ_CONCURRENCY);
    const texts = await Promise.all(batch.map((file) => readFile(join(workspace, file.path), 'utf8')));
    batch.forEach((file, index) => {
      const module = parseModule(workspace, file.path, texts[index] ?? '', resolver, paths);
      modules.set(file.path, module.resolved);
      imports.push(...module.imports);
      unresolved.push(...module.unresolved);
    });
  }

  const tables = resolveExportTables(modules);
  const files: RepoFile[] = listed.map((file: WorkspaceFile) => ({
    path: file.path,
    size: file.size,
    language: languageOf(file.path),
    exports: [...(tables.get(file.path)?.keys() ?? [])].sort(),
  }));
  return {
    root: workspace,
    files,
    imports,
    unresolved,
    importers: symbolImporters(modules, tables),
    aliases: exportAliases(tables),
    warnings,
  };
}

async function workspaceRoot(root: string): Promise<string> {
  try {
    const workspace = await realpath(resolve(root));
    if (!(await stat(workspace)).isDirectory()) throw new Error('not a folder');
    return workspace;
  } catch (error) {
    throw new WorkspaceNotFoundError(root, error);
  }
}

function parseModule(
  workspace: string,
  path: string,
  text: string,
  resolver: ModuleResolver,
  paths: ReadonlySet<string>,
): { resolved: ResolvedModule; imports: ImportEdge[]; unresolved: UnresolvedImport[] } {
  const fileName = join(workspace, path);
  const sourceFile = ts.createSourceFile(
    fileName,
    text,
    { languageVersion: ts.ScriptTarget.Latest, impliedNodeFormat: resolver.impliedFormat(fileName), jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
    true,
  );
  const facts = collectModuleFacts(sourceFile, resolver.options);
  const imports: ImportEdge[] = [];
  const unresolved: UnresolvedImport[] = [];
  const targets = facts.references.map((reference) => {
    const resolution = resolver.resolve(reference.specifier, fileName, reference.mode);
    if (resolution.status === 'unresolved') {
      if (isLocalSpecifier(reference.specifier, resolver.options)) unresolved.push({ from: path, specifier: reference.specifier, line: reference.line });
      return undefined;
    }
    const target = workspacePath(workspace, resolution.fileName);
    if (resolution.external || target === undefined || !paths.has(target)) return undefined;
    imports.push({ from: path, to: target, specifier: reference.specifier, kind: reference.kind, line: reference.line, typeOnly: reference.typeOnly });
    return target;
  });
  return { resolved: { facts, targets }, imports, unresolved };
}

function workspacePath(workspace: string, fileName: string): string | undefined {
  const path = relative(workspace, fileName);
  if (path === '' || path.startsWith('..') || isAbsolute(path)) return undefined;
  return path.split(sep).join('/');
}

/** Relative, absolute or matching a `paths` alias: a specifier meant to name a workspace file. */
function isLocalSpecifier(specifier: string, options: ts.CompilerOptions): boolean {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return true;
  return Object.keys(options.paths ?? {}).some((pattern) => {
    const star = pattern.indexOf('*');
    if (star === -1) return specifier === pattern;
    return specifier.startsWith(pattern.slice(0, star)) && specifier.endsWith(pattern.slice(star + 1));
  });
}
