import { readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DagentError } from '../../engine/index.js';
import { resolveExportTables, type ResolvedModule } from './export-tables.js';
import { isScriptFile, languageOf } from './language-of.js';
import { listWorkspaceFiles, type WorkspaceFile } from './list-workspace-files.js';
import type { ModuleParser } from './module-parser.js';
import type { ImportEdge, RepoFile, RepoMap, UnresolvedImport } from './repo-map.js';
import { configKey, pathsKey, readCachedRepoMap, readScanCache, repoMapKey, writeCachedRepoMap, writeScanCache, type CachedModule } from './scan-cache.js';
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
  /**
   * Keep what the scan learnt in `.dagent/cache/` and reuse it: only files whose size or mtime
   * changed are read and parsed again, the compiler is not even loaded when none did, and when
   * no file, path or config changed the last answer is returned as it was (default true).
   */
  readonly cache?: boolean;
  /** Called with each file the scan reads and parses (not those it takes from the cache). */
  readonly onParse?: (path: string) => void;
}

/**
 * Scans the workspace: its files as git sees them, with sizes and languages; for TypeScript and
 * JavaScript the import graph (resolved by TypeScript with the workspace's tsconfig), each
 * module's exports and each exported symbol's importers through barrel files.
 * Each file is parsed on its own (`ts.createSourceFile`); no type checking, no program. With the
 * cache, a file is parsed again only when its size or mtime changed, and every file's imports
 * are resolved again only when the set of files or the config files changed.
 */
export async function scanRepository(root: string, options: ScanOptions = {}): Promise<RepoMap> {
  const workspace = await workspaceRoot(root);
  const listed = await listWorkspaceFiles(workspace, { ...(options.ignore === undefined ? {} : { ignore: options.ignore }), ...(options.signal === undefined ? {} : { signal: options.signal }) });
  const maxParseBytes = options.maxParseBytes ?? MAX_PARSE_BYTES;
  const useCache = options.cache ?? true;

  const paths = new Set(listed.map((file) => file.path));
  const scripts = listed.filter((file) => isScriptFile(file.path));
  const warnings: string[] = [];
  for (const file of scripts) if (file.size > maxParseBytes) warnings.push(`${file.path}: ${file.size} bytes, larger than ${maxParseBytes}; listed but not parsed`);
  const parseable = scripts.filter((file) => file.size <= maxParseBytes);

  const keys = { configKey: await configKey(workspace, options.tsconfig, maxParseBytes), pathsKey: pathsKey([...paths]) };
  // Nothing changed since the last scan: its answer stands, and no module needs even reading.
  const mapKey = repoMapKey(keys.configKey, listed);
  const answered = useCache ? await readCachedRepoMap(workspace, mapKey) : undefined;
  if (answered !== undefined) return { root: workspace, ...answered, fingerprint: mapKey };

  const cache = useCache ? await readScanCache(workspace) : undefined;
  const resolutionsHold = cache !== undefined && cache.configKey === keys.configKey && cache.pathsKey === keys.pathsKey;
  const cached = (file: WorkspaceFile): CachedModule | undefined => {
    const entry = cache?.modules[file.path];
    return entry !== undefined && entry.size === file.size && entry.mtimeMs === file.mtimeMs ? entry : undefined;
  };
  const changed = parseable.filter((file) => cached(file) === undefined);

  let parser: ModuleParser | undefined;
  if (changed.length > 0 || !resolutionsHold) {
    const { createModuleParser } = await import('./module-parser.js');
    parser = createModuleParser(workspace, options.tsconfig);
  }
  const resolverWarnings = parser?.warnings ?? cache?.warnings ?? [];

  const entries = new Map<string, CachedModule>();
  await parseFiles(workspace, changed, parser, paths, entries, options);
  for (const file of parseable) {
    const entry = cached(file);
    if (entry === undefined) continue;
    entries.set(file.path, resolutionsHold ? entry : { ...entry, ...(parser as ModuleParser).resolve(file.path, entry.facts, paths) });
  }
  if (useCache && (parser !== undefined || Object.keys(cache?.modules ?? {}).length !== entries.size)) {
    await writeScanCache(workspace, { ...keys, warnings: resolverWarnings, modules: Object.fromEntries(entries) });
  }

  const { modules, imports, unresolved } = importGraph(parseable, entries);

  const tables = resolveExportTables(modules);
  const files: RepoFile[] = listed.map((file: WorkspaceFile) => ({
    path: file.path,
    size: file.size,
    language: languageOf(file.path),
    exports: [...(tables.get(file.path)?.keys() ?? [])].sort(),
  }));
  const map: RepoMap = {
    root: workspace,
    files,
    imports,
    unresolved,
    importers: symbolImporters(modules, tables),
    aliases: exportAliases(tables),
    warnings: [...resolverWarnings, ...warnings],
    fingerprint: mapKey,
  };
  if (useCache) await writeCachedRepoMap(workspace, mapKey, map);
  return map;
}

/** Reads and parses the changed files, a batch at a time, into `entries`. */
async function parseFiles(
  workspace: string,
  changed: readonly WorkspaceFile[],
  parser: ModuleParser | undefined,
  paths: ReadonlySet<string>,
  entries: Map<string, CachedModule>,
  options: ScanOptions,
): Promise<void> {
  for (let start = 0; start < changed.length; start += READ_CONCURRENCY) {
    options.signal?.throwIfAborted();
    const batch = changed.slice(start, start + READ_CONCURRENCY);
    // A file removed or renamed since the listing reads as empty rather than failing the scan.
    const texts = await Promise.all(batch.map((file) => readFile(join(workspace, file.path), 'utf8').catch((error: unknown) => ((error as NodeJS.ErrnoException).code === 'ENOENT' ? '' : Promise.reject(error)))));
    batch.forEach((file, index) => {
      options.onParse?.(file.path);
      const facts = (parser as ModuleParser).parse(file.path, texts[index] ?? '');
      entries.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, facts, ...(parser as ModuleParser).resolve(file.path, facts, paths) });
    });
  }
}

/** Each module's facts with its resolved targets, the import edges, and the imports that resolve nowhere. */
function importGraph(parseable: readonly WorkspaceFile[], entries: ReadonlyMap<string, CachedModule>): { modules: Map<string, ResolvedModule>; imports: ImportEdge[]; unresolved: UnresolvedImport[] } {
  const modules = new Map<string, ResolvedModule>();
  const imports: ImportEdge[] = [];
  const unresolved: UnresolvedImport[] = [];
  for (const file of parseable) {
    const entry = entries.get(file.path);
    if (entry === undefined) continue;
    const targets = entry.targets.map((target) => target ?? undefined);
    modules.set(file.path, { facts: entry.facts, targets });
    entry.facts.references.forEach((reference, index) => {
      const to = targets[index];
      if (to !== undefined) imports.push({ from: file.path, to, specifier: reference.specifier, kind: reference.kind, line: reference.line, typeOnly: reference.typeOnly });
    });
    for (const index of entry.unresolved) {
      const reference = entry.facts.references[index];
      if (reference !== undefined) unresolved.push({ from: file.path, specifier: reference.specifier, line: reference.line });
    }
  }
  return { modules, imports, unresolved };
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
