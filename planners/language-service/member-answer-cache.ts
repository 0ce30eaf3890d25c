import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { MAX_PARSE_BYTES, MEMBER_REFERENCES_CACHE_PATH, parseSymbolKey, scanConfigKey, writeCacheFile, type RepoMap } from '../repo-scan/index.js';
import { contentHash, mayAffectOtherFiles, mentionsWord } from './file-fingerprint.js';
import type { ReferencingFile } from './workspace-language-service.js';

/** Bumped whenever what an answer's file holds changes shape or meaning. */
const CACHE_VERSION = 1;

/**
 * A file whose mtime is this close to when the answer was stored may have been edited again
 * within the same clock tick, keeping its size: its content is hashed on every check ("racy git").
 */
const RACY_MS = 2000;

/** One file the answer was computed from, as it was then. */
interface Dependency {
  readonly size: number;
  readonly mtimeMs: number;
  readonly hash: string;
  /** What other files can see of it (`apiSignature`); none for a file outside the workspace. */
  readonly signature?: string;
  /** Where its imports led in the scan (a hash of the targets), for a workspace file. */
  readonly edges?: string;
}

interface StoredAnswer {
  readonly version: number;
  readonly symbol: string;
  readonly configKey: string;
  /** The member's own name: a file that does not hold it cannot reference it. */
  readonly word: string;
  readonly writtenAt: number;
  /** The files that declare the symbol or one it is tied to (a base class, an implemented interface). */
  readonly declaring: readonly string[];
  /** The scan's declaration files (`.d.ts`), hashed: a new one may declare globals. */
  readonly declarationFiles: string;
  readonly files: readonly ReferencingFile[];
  /** Workspace-relative paths (absolute outside the workspace: the libraries' `.d.ts`). */
  readonly dependencies: Readonly<Record<string, Dependency>>;
}

/** What the language service answered from: the files its programs held, and the declaring files. */
export interface ReferencesBasis {
  /** Absolute file names with the text the program read and, for workspace files, their signature. */
  readonly sources: readonly { readonly fileName: string; readonly text: string; readonly signature?: string }[];
  readonly declaring: readonly string[];
}

export interface MemberCacheInput {
  readonly workspace: string;
  readonly tsconfig: string | undefined;
  /** The symbol key as asked, `src/invoice.ts#Invoice.total`. */
  readonly symbol: string;
  readonly loadMap: () => Promise<RepoMap>;
}

/**
 * The stored answer to a member query, when it still holds: the config is the same; every file it
 * was computed from is unchanged (same size and mtime, or else the same content hash) or changed
 * only where it cannot matter — a file that does not declare the symbol, does not reference it
 * before or after and kept its signature (an edit inside a typed function body); the files' imports lead where they led; no declaration file came or went; and every
 * file that now imports its way to the declaring files was loaded then, or cannot reference it.
 */
export async function cachedReferences(input: MemberCacheInput): Promise<readonly ReferencingFile[] | undefined> {
  const stored = await readAnswer(input);
  if (stored === undefined || stored.configKey !== (await memberConfigKey(input))) return undefined;
  const updated: Record<string, Dependency> = {};
  const changed: { path: string; fileName: string; text: string; hash: string; size: number; mtimeMs: number }[] = [];
  for (const [path, known] of Object.entries(stored.dependencies)) {
    const fileName = isAbsolute(path) ? path : join(input.workspace, path);
    const now = fingerprint(fileName);
    if (now === undefined) return undefined;
    if (now.size === known.size && now.mtimeMs === known.mtimeMs && known.mtimeMs < stored.writtenAt - RACY_MS) continue;
    const content = readOrNone(fileName);
    if (content === undefined) return undefined;
    const hash = contentHash(content);
    if (hash === known.hash) updated[path] = { ...known, ...now };
    else changed.push({ path, fileName, text: content.toString('utf8'), hash, ...now });
  }
  const listed = new Set(stored.files.map((file) => file.file));
  for (const file of changed) {
    const known = stored.dependencies[file.path];
    if (known?.signature === undefined || isAbsolute(file.path) || listed.has(file.path) || stored.declaring.includes(file.path)) return undefined;
    if (mentionsWord(file.text, stored.word)) return undefined;
    // The same signature means the same augmentations and references too: they have no bodies to edit.
    const { apiSignature } = await import('./api-signature.js');
    if (apiSignature(file.fileName, file.text) !== known.signature) return undefined;
    updated[file.path] = { ...known, size: file.size, mtimeMs: file.mtimeMs, hash: file.hash };
  }
  const map = await input.loadMap();
  if (!(await graphHolds(stored, map, input.workspace))) return undefined;
  if (Object.keys(updated).length > 0) await writeAnswer(input, { ...stored, writtenAt: Date.now(), dependencies: { ...stored.dependencies, ...updated } });
  return stored.files;
}

/** Keeps an answer with the fingerprints of what it was computed from; an answer whose files moved while it was computed is not kept. */
export async function storeReferences(input: MemberCacheInput, files: readonly ReferencingFile[], basis: ReferencesBasis, map: RepoMap): Promise<void> {
  const writtenAt = Date.now();
  const dependencies: Record<string, Dependency> = {};
  const targets = importTargets(map);
  for (const source of basis.sources) {
    const now = fingerprint(source.fileName);
    const content = readOrNone(source.fileName);
    if (now === undefined || content === undefined || content.toString('utf8') !== source.text) return;
    const path = shown(input.workspace, source.fileName);
    const inWorkspace = !isAbsolute(path) && !path.split('/').includes('node_modules');
    dependencies[path] = {
      ...now,
      hash: contentHash(content),
      ...(inWorkspace && source.signature !== undefined ? { signature: source.signature, edges: edgesHash(targets.get(path)) } : {}),
    };
  }
  const parsed = parseSymbolKey(input.symbol);
  await writeAnswer(input, {
    version: CACHE_VERSION,
    symbol: input.symbol,
    configKey: await memberConfigKey(input),
    word: parsed?.name.split('.').at(-1) ?? '',
    writtenAt,
    declaring: basis.declaring.map((fileName) => shown(input.workspace, fileName)),
    declarationFiles: declarationFilesHash(map),
    files,
    dependencies,
  });
}

/** The scan still leads where it led: the same imports out of each file, the same declaration files, no new file reaching the declaring files that could reference the symbol. */
async function graphHolds(stored: StoredAnswer, map: RepoMap, workspace: string): Promise<boolean> {
  if (declarationFilesHash(map) !== stored.declarationFiles) return false;
  const targets = importTargets(map);
  for (const [path, known] of Object.entries(stored.dependencies)) {
    if (known.edges !== undefined && known.edges !== edgesHash(targets.get(path))) return false;
  }
  for (const path of reach(map, stored.declaring)) {
    if (stored.dependencies[path] !== undefined) continue;
    const text = await readFile(join(workspace, path), 'utf8').catch(() => undefined);
    if (text === undefined || mentionsWord(text, stored.word) || mayAffectOtherFiles(text)) return false;
  }
  return true;
}

/** The files that import the given ones, transitively, over the scan's import graph (the files themselves included). */
function reach(map: RepoMap, start: readonly string[]): Set<string> {
  const importers = new Map<string, string[]>();
  for (const edge of map.imports) {
    const list = importers.get(edge.to);
    if (list === undefined) importers.set(edge.to, [edge.from]);
    else list.push(edge.from);
  }
  const reached = new Set<string>();
  const queue = [...start];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (reached.has(next)) continue;
    reached.add(next);
    queue.push(...(importers.get(next) ?? []));
  }
  return reached;
}

function importTargets(map: RepoMap): Map<string, string[]> {
  const targets = new Map<string, string[]>();
  for (const edge of map.imports) {
    const list = targets.get(edge.from);
    if (list === undefined) targets.set(edge.from, [edge.to]);
    else list.push(edge.to);
  }
  return targets;
}

function edgesHash(targets: readonly string[] | undefined): string {
  return contentHash([...new Set(targets ?? [])].sort().join('\n'));
}

function declarationFilesHash(map: RepoMap): string {
  return contentHash(map.files.filter((file) => /\.d\.[cm]?ts$/.test(file.path)).map((file) => file.path).sort().join('\n'));
}

/** What package managers rewrite on every install: a package installed or updated can change the types of an import. */
const INSTALL_MARKERS = ['package-lock.json', 'node_modules/.package-lock.json', 'node_modules/.yarn-integrity', 'node_modules/.modules.yaml', 'yarn.lock', 'pnpm-lock.yaml'];

/** The config the answers were computed with: the scan's config key (tsconfig text, what it extends, package.json) and the installed packages. */
async function memberConfigKey(input: MemberCacheInput): Promise<string> {
  const tsconfig = input.tsconfig === undefined ? undefined : relative(input.workspace, resolve(input.workspace, input.tsconfig));
  const installed = INSTALL_MARKERS.map((marker) => {
    const now = fingerprint(join(input.workspace, marker));
    return now === undefined ? '-' : `${now.size}:${now.mtimeMs}`;
  });
  return contentHash([await scanConfigKey(input.workspace, tsconfig, MAX_PARSE_BYTES), ...installed].join('\n'));
}

function answerPath(input: MemberCacheInput): string {
  const name = createHash('sha1').update(`${input.symbol}\0${input.tsconfig ?? ''}`).digest('hex').slice(0, 24);
  return join(input.workspace, MEMBER_REFERENCES_CACHE_PATH, `${name}.json`);
}

async function readAnswer(input: MemberCacheInput): Promise<StoredAnswer | undefined> {
  try {
    const stored = JSON.parse(await readFile(answerPath(input), 'utf8')) as StoredAnswer;
    return stored.version === CACHE_VERSION && stored.symbol === input.symbol && typeof stored.dependencies === 'object' ? stored : undefined;
  } catch {
    return undefined;
  }
}

async function writeAnswer(input: MemberCacheInput, answer: StoredAnswer): Promise<void> {
  await writeCacheFile(answerPath(input), answer);
}

function fingerprint(fileName: string): { size: number; mtimeMs: number } | undefined {
  try {
    const stats = statSync(fileName);
    return { size: stats.size, mtimeMs: stats.mtimeMs };
  } catch {
    return undefined;
  }
}

function readOrNone(fileName: string): Buffer | undefined {
  try {
    return readFileSync(fileName);
  } catch {
    return undefined;
  }
}

/** Workspace-relative with `/`, or absolute outside the workspace. */
function shown(workspace: string, fileName: string): string {
  const path = relative(workspace, fileName);
  return path.startsWith('..') || isAbsolute(path) ? fileName : path.split(sep).join('/');
}
