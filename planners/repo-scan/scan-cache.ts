import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { WorkspaceFile } from './list-workspace-files.js';
import type { ModuleFacts } from './module-facts.js';
import type { RepoMap } from './repo-map.js';

/** Bumped whenever what a file's entry holds changes shape or meaning. */
const CACHE_VERSION = 2;

/** Where the scan keeps what it learnt, under the workspace's `.dagent/` (never scanned itself). */
export const SCAN_CACHE_PATH = '.dagent/cache/repo-scan.json';

/** The last scan's answer, kept whole: while no file, path or config changed, it is the answer. */
export const REPO_MAP_CACHE_PATH = '.dagent/cache/repo-map.json';

/**
 * The answers of member queries (`scan --importers FILE#Class.member`, plan lint), one file per
 * symbol, each with the fingerprints of the files it was computed from.
 */
export const MEMBER_REFERENCES_CACHE_PATH = '.dagent/cache/member-references';

/** One parsed file: keyed by size and mtime; its resolutions hold while the keys of the cache hold. */
export interface CachedModule {
  readonly size: number;
  readonly mtimeMs: number;
  readonly facts: ModuleFacts;
  readonly targets: readonly (string | null)[];
  readonly unresolved: readonly number[];
}

export interface ScanCache {
  readonly version: number;
  /** The tsconfig, jsconfig and package.json the resolutions were made with. */
  readonly configKey: string;
  /** The set of workspace paths the resolutions were made against (a new file can change where `./a` leads). */
  readonly pathsKey: string;
  /** The resolver's warnings (a broken tsconfig), kept with the resolutions they explain. */
  readonly warnings: readonly string[];
  readonly modules: Readonly<Record<string, CachedModule>>;
}

export async function readScanCache(workspace: string): Promise<ScanCache | undefined> {
  try {
    const cache = JSON.parse(await readFile(join(workspace, SCAN_CACHE_PATH), 'utf8')) as ScanCache;
    return cache.version === CACHE_VERSION && typeof cache.modules === 'object' ? cache : undefined;
  } catch {
    return undefined;
  }
}

export async function writeScanCache(workspace: string, cache: Omit<ScanCache, 'version'>): Promise<void> {
  await writeAtomically(join(workspace, SCAN_CACHE_PATH), { version: CACHE_VERSION, ...cache });
}

/** The repository map the last scan answered with, if it was made from exactly these inputs (`repoMapKey`). */
export async function readCachedRepoMap(workspace: string, key: string): Promise<Omit<RepoMap, 'root'> | undefined> {
  try {
    const cached = JSON.parse(await readFile(join(workspace, REPO_MAP_CACHE_PATH), 'utf8')) as { version?: unknown; key?: unknown; map?: Omit<RepoMap, 'root'> };
    return cached.version === CACHE_VERSION && cached.key === key ? cached.map : undefined;
  } catch {
    return undefined;
  }
}

export async function writeCachedRepoMap(workspace: string, key: string, map: RepoMap): Promise<void> {
  const { root: _root, ...rest } = map;
  await writeAtomically(join(workspace, REPO_MAP_CACHE_PATH), { version: CACHE_VERSION, key, map: rest });
}

/** Everything a scan's answer depends on: the config key, and every listed file's path, size and mtime. */
export function repoMapKey(configKey: string, files: readonly WorkspaceFile[]): string {
  const hasher = createHash('sha1').update(configKey);
  for (const file of files) hasher.update(`\n${file.path}\0${file.size}\0${file.mtimeMs}`);
  return hasher.digest('hex');
}

/** Writes through a temporary file and a rename, so a concurrent scan reads the old cache or the new one, never half. A workspace that cannot be written to just goes uncached. */
export async function writeAtomically(path: string, value: unknown): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(temporary, JSON.stringify(value));
    await rename(temporary, path);
  } catch {
    // Uncached is slower, not wrong.
  }
}

/**
 * What the resolutions depend on besides the files: the config files' text, the text of every
 * config a tsconfig `extends` or lists in `references` (transitively), and the options of the scan.
 */
export async function configKey(workspace: string, tsconfig: string | undefined, maxParseBytes: number): Promise<string> {
  const names = tsconfig === undefined ? ['tsconfig.json', 'jsconfig.json', 'package.json'] : [tsconfig, 'package.json'];
  const texts = await Promise.all(names.map((name) => readFile(join(workspace, name), 'utf8').catch(() => '')));
  const seen = new Set<string>();
  const related: string[] = [];
  for (const [index, name] of names.entries()) {
    if (name !== 'package.json') related.push(...(await relatedConfigs(workspace, join(workspace, name), texts[index] ?? '', seen)));
  }
  return hash(JSON.stringify([tsconfig ?? null, maxParseBytes, names, texts, related]));
}

/** The paths and texts of the configs a config extends or references, depth first; a config met twice (a cycle) is read once. */
async function relatedConfigs(workspace: string, configFile: string, text: string, seen: Set<string>): Promise<string[]> {
  const found: string[] = [];
  const paths = [...extendsOf(text).map((specifier) => extendedPath(workspace, configFile, specifier)), ...referencesOf(text).map((path) => referencedPath(configFile, path))];
  for (const path of paths) {
    if (path === undefined || seen.has(path)) continue;
    seen.add(path);
    const inner = await readFile(path, 'utf8').catch(() => '');
    found.push(path, inner, ...(await relatedConfigs(workspace, path, inner, seen)));
  }
  return found;
}

/** The `extends` of a tsconfig (a string or a list), read without a JSONC parser: enough to key a cache. */
function extendsOf(text: string): string[] {
  const match = /"extends"\s*:\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*")/.exec(text);
  if (match?.[1] === undefined) return [];
  try {
    const value = JSON.parse(match[1].replace(/,\s*\]$/, ']')) as unknown;
    return (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
  } catch {
    return [];
  }
}

/** The `path` of each entry of a tsconfig's `references`, read the same way. */
function referencesOf(text: string): string[] {
  const list = /"references"\s*:\s*\[([^\]]*)\]/.exec(text)?.[1];
  if (list === undefined) return [];
  return [...list.matchAll(/"path"\s*:\s*"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] ?? '');
}

/** A referenced project's config: the path itself when it is a file, else its tsconfig.json. */
function referencedPath(from: string, path: string): string {
  const target = resolve(dirname(from), path);
  return existsSync(target) && statSync(target).isFile() ? target : join(target, 'tsconfig.json');
}

/** Where TypeScript finds an extended config: a path from the extending file, or a package under node_modules. */
function extendedPath(workspace: string, from: string, specifier: string): string | undefined {
  const base = specifier.startsWith('.') || isAbsolute(specifier) ? resolve(dirname(from), specifier) : join(workspace, 'node_modules', specifier);
  return [base, `${base}.json`, join(base, 'tsconfig.json')].find((path) => existsSync(path) && statSync(path).isFile());
}

export function pathsKey(paths: readonly string[]): string {
  return hash(paths.join('\n'));
}

function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
