import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, lstat, mkdir, realpath, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { isGlobPattern } from '../plan/index.js';
import { FileSnapshotGitError } from './file-snapshot-errors.js';
import { GitBlobBatch } from './git-blob-batch.js';
import { gitSpawner } from './git-spawner.js';
import { looseObjectFolder, writeLooseObject } from './loose-objects.js';
import { DAGENT_TEMP_FILE_GLOB } from './temp-file-name.js';
import { controlledGitEnvironment } from './git-environment.js';

/** Runs one git command in `cwd` and resolves with its stdout; rejects with `FileSnapshotGitError`. */
export type GitRunner = (args: readonly string[], options: GitRunOptions) => Promise<Buffer>;

export interface GitRunOptions {
  readonly cwd: string;
  readonly indexFile?: string;
  /** Written to the command's stdin. */
  readonly input?: Buffer;
  /** Exit codes besides 0 that are answers, not failures (e.g. 1 from `check-ignore` when nothing is ignored). */
  readonly okCodes?: readonly number[];
}

/** One path that differs between two trees. Blob ids are null on the side where the path is absent. */
export interface GitTreeChange {
  readonly path: string;
  readonly oldBlob: string | null;
  readonly newBlob: string | null;
  /** The git modes (`100644`, `100755`, `120000` for a link), null on the absent side. */
  readonly oldMode: string | null;
  readonly newMode: string | null;
}

/** A path in a tree: its mode and blob. */
export interface GitEntry {
  readonly mode: string;
  readonly blob: string;
}

export const GIT_LINK_MODE = '120000';
/** Memory kept for the contents of blobs written by this process. */
const WRITTEN_CACHE_BYTES = 32 * 1024 * 1024;
/** Pathspecs per command line, well under any OS's argument limit. */
export const PATHS_PER_COMMAND = 500;

/**
 * Settings for every snapshot command, whatever the user's config says: raw bytes (no CRLF
 * conversion), no fsmonitor daemon, no shared index files or automatic gc in their `.git`.
 */
const GIT_SETTINGS = [
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.fsmonitor=false',
  'core.splitIndex=false',
  'core.untrackedCache=false',
  'index.sparse=false',
  'gc.auto=0',
  'advice.addEmbeddedRepo=false',
  'advice.addIgnoredFile=false',
].flatMap((setting) => ['-c', setting]);

/** Where the private index lives: under `.dagent/`, never the user's `.git/index`. */
const SNAPSHOT_INDEX_FOLDER = join('.dagent', 'git-snapshots');
const NULL_BLOB = /^0+$/;
const GITLINK_MODE = '160000';

/**
 * Snapshots of a git workspace's working copy as git trees. Each snapshot stages the whole
 * working copy (tracked and untracked files, .gitignore honoured, `.dagent/` left out) into a
 * private index (`GIT_INDEX_FILE`) and writes its tree. The user's index, HEAD and refs are never
 * touched; only blob and tree objects are added to the object store. The private index is kept
 * between snapshots (copied per snapshot, so concurrent nodes never share a lock) so git re-hashes
 * only the files whose stat data changed.
 */
export class GitWorkingTree {
  readonly root: string;
  readonly #git: GitRunner;
  readonly #batch: GitBlobBatch | undefined;
  #objects: Promise<string | undefined> | undefined;
  #dagentIgnored: Promise<boolean> | undefined;
  readonly #written = new Map<string, Buffer>();
  #writtenBytes = 0;

  constructor(root: string, git: GitRunner = runGit) {
    this.root = root;
    this.#git = git;
    // With the real git, blobs are read through one long-lived process; a runner given for tests sees every command.
    this.#batch = git === runGit ? catFileBatch(root, ['--filters']) : undefined;
  }

  /** Stops the long-lived `git cat-file` (if one was started); reads after it start a command each. */
  close(): void {
    this.#batch?.close();
  }

  /** A `GitWorkingTree` when `root` holds a `.git` and is the top of a repository git can use; otherwise undefined. */
  static async detect(root: string, git: GitRunner = runGit): Promise<GitWorkingTree | undefined> {
    const dotGit = await lstat(join(root, '.git')).catch(() => undefined);
    if (dotGit === undefined) return undefined;
    try {
      const topLevel = (await git(['rev-parse', '--show-toplevel'], { cwd: root })).toString('utf8').trim();
      const [top, real] = await Promise.all([realpath(topLevel), realpath(root)]);
      return top === real ? new GitWorkingTree(root, git) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The tree id of the working copy as it is now. */
  async writeTree(): Promise<string> {
    const folder = join(this.root, SNAPSHOT_INDEX_FOLDER);
    await mkdir(folder, { recursive: true });
    const shared = join(folder, 'index');
    const indexFile = join(folder, `index-${randomBytes(6).toString('hex')}`);
    try {
      const warm = await copyKeepingTimes(shared, indexFile);
      if (!warm && (await this.#hasHead())) await this.#git(['read-tree', 'HEAD'], { cwd: this.root, indexFile });
      // git refuses an exclude pathspec that names an ignored path: when .gitignore already leaves .dagent/ out, it is not named.
      this.#dagentIgnored ??= this.ignored(['.dagent']).then((ignored) => ignored.has('.dagent'));
      const excludeDagent = (await this.#dagentIgnored) ? [] : [':(exclude).dagent'];
      await this.#git(['add', '-A', '--', '.', ...excludeDagent, `:(exclude,glob)${DAGENT_TEMP_FILE_GLOB}`], { cwd: this.root, indexFile });
      const tree = (await this.#git(['write-tree'], { cwd: this.root, indexFile })).toString('utf8').trim();
      await rename(indexFile, shared);
      return tree;
    } finally {
      await rm(indexFile, { force: true });
      await rm(`${indexFile}.lock`, { force: true });
    }
  }

  /** Paths whose content differs between two trees, sorted (submodule commits left out). */
  async diffTrees(from: string, to: string): Promise<GitTreeChange[]> {
    if (from === to) return [];
    const output = await this.#git(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-ext-diff', from, to], { cwd: this.root });
    return parseRawDiff(output.toString('utf8'));
  }

  /** A blob's content in working-copy form (the path's checkout filters applied, e.g. eol=crlf). */
  async readBlob(blob: string, path: string): Promise<Buffer> {
    if (this.#batch !== undefined && !this.#batch.failed) {
      const bytes = await this.#batch.read(blob, path).catch(() => undefined);
      if (bytes !== undefined) return bytes;
    }
    return this.#git(['cat-file', '--filters', `--path=${path}`, blob], { cwd: this.root });
  }

  /** A blob's bytes as stored (a link's target for a link); blobs this process wrote come from memory. */
  async readRawBlob(blob: string): Promise<Buffer> {
    return this.#written.get(blob) ?? this.#git(['cat-file', 'blob', blob], { cwd: this.root });
  }

  /** The entries of `tree` at the given paths, and under those that are folders in it. */
  async lsTree(tree: string, paths: readonly string[]): Promise<Map<string, GitEntry>> {
    const entries = new Map<string, GitEntry>();
    for (let start = 0; start < paths.length; start += PATHS_PER_COMMAND) {
      const chunk = paths.slice(start, start + PATHS_PER_COMMAND);
      const output = await this.#git(['--literal-pathspecs', 'ls-tree', '-r', '-z', '--full-tree', tree, '--', ...chunk], { cwd: this.root });
      parseTreeListing(output, entries);
    }
    return entries;
  }

  /** Every file and link of `tree`, by path (one `git ls-tree` for the whole tree). */
  async treeEntries(tree: string): Promise<Map<string, GitEntry>> {
    const output = await this.#git(['ls-tree', '-r', '-z', '--full-tree', tree], { cwd: this.root });
    return parseTreeListing(output, new Map());
  }

  /** The paths .gitignore (or info/exclude, or the user's excludes) ignores; tracked files never are. */
  async ignored(paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    const output = await this.#git(['check-ignore', '-z', '--stdin'], { cwd: this.root, input: Buffer.from(paths.map((path) => `${path}\0`).join(''), 'utf8'), okCodes: [1] });
    return new Set(output.toString('utf8').split('\0').filter((path) => path !== ''));
  }

  /** The files git ignores that the writes' paths and globs name (the boundary tree leaves them out). */
  async ignoredFiles(writes: readonly string[]): Promise<string[]> {
    const pathspecs = writes.filter((pattern) => !pattern.startsWith('!')).map((pattern) => pattern.replace(/^\.\//, '')).map((pattern) => (isGlobPattern(pattern) ? `:(glob)${pattern}` : `:(literal)${pattern}`));
    if (pathspecs.length === 0) return [];
    const output = await this.#git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', ...pathspecs], { cwd: this.root });
    return output.toString('utf8').split('\0').filter((path) => path !== '' && !path.startsWith('.dagent/'));
  }

  /**
   * Stores bytes as one blob and returns its id. A loose object is written in-process in SHA-1
   * repositories (`writeLooseObject`); others use `git hash-object`. A boundary stores every
   * changed file this way.
   */
  async hashBytes(bytes: Buffer): Promise<string> {
    this.#objects ??= looseObjectFolder(this.root, this.#git);
    const objects = await this.#objects;
    if (objects === undefined) return (await this.#git(['hash-object', '-w', '--no-filters', '--stdin'], { cwd: this.root, input: bytes })).toString('utf8').trim();
    const id = writeLooseObject(objects, 'blob', bytes);
    this.#remember(id, bytes);
    return id;
  }

  /** Keeps the blobs written last (up to WRITTEN_CACHE_BYTES), so reading a node's content before costs no git process. */
  #remember(id: string, bytes: Buffer): void {
    if (bytes.length > WRITTEN_CACHE_BYTES / 16 || this.#written.has(id)) return;
    this.#written.set(id, bytes);
    this.#writtenBytes += bytes.length;
    for (const [oldest, content] of this.#written) {
      if (this.#writtenBytes <= WRITTEN_CACHE_BYTES) break;
      this.#written.delete(oldest);
      this.#writtenBytes -= content.length;
    }
  }

  /** The object folder of a SHA-1 repository, or undefined (then git writes the objects). */
  /** The tree of `base` with the given entries replaced (null: removed), built in a throwaway index. */
  async treeWith(base: string, entries: Readonly<Record<string, GitEntry | null>>): Promise<string> {
    const folder = join(this.root, SNAPSHOT_INDEX_FOLDER);
    await mkdir(folder, { recursive: true });
    const indexFile = join(folder, `index-${randomBytes(6).toString('hex')}`);
    try {
      await this.#git(['read-tree', base], { cwd: this.root, indexFile });
      const lines = Object.entries(entries).map(([path, entry]) => (entry === null ? `0 ${'0'.repeat(base.length)}\t${path}\0` : `${entry.mode} ${entry.blob}\t${path}\0`));
      if (lines.length > 0) await this.#git(['update-index', '-z', '--index-info'], { cwd: this.root, indexFile, input: Buffer.from(lines.join(''), 'utf8') });
      return (await this.#git(['write-tree'], { cwd: this.root, indexFile })).toString('utf8').trim();
    } finally {
      await rm(indexFile, { force: true });
      await rm(`${indexFile}.lock`, { force: true });
    }
  }

  async #hasHead(): Promise<boolean> {
    return this.#git(['rev-parse', '--verify', '--quiet', 'HEAD^{tree}'], { cwd: this.root }).then(
      () => true,
      () => false,
    );
  }
}

/** Adds the blobs of a `git ls-tree -r -z` listing (`mode type id TAB path NUL`, repeated) to `entries`. */
export function parseTreeListing(output: Buffer, entries: Map<string, GitEntry>): Map<string, GitEntry> {
  for (const record of output.toString('utf8').split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, blob] = record.slice(0, tab).split(' ');
    if (type !== 'blob' || mode === undefined || blob === undefined) continue;
    entries.set(record.slice(tab + 1), { mode, blob });
  }
  return entries;
}

/** Parses `git diff-tree -r -z --raw`: `:oldmode newmode oldsha newsha status NUL path NUL`, repeated. */
export function parseRawDiff(output: string): GitTreeChange[] {
  const fields = output.split('\0');
  const changes: GitTreeChange[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const meta = fields[index]!;
    const path = fields[index + 1]!;
    if (!meta.startsWith(':')) continue;
    const [oldMode, newMode, oldBlob, newBlob] = meta.slice(1).split(' ');
    if (oldMode === GITLINK_MODE || newMode === GITLINK_MODE) continue;
    const before = oldBlob === undefined || NULL_BLOB.test(oldBlob) ? null : oldBlob;
    const after = newBlob === undefined || NULL_BLOB.test(newBlob) ? null : newBlob;
    changes.push({ path, oldBlob: before, newBlob: after, oldMode: before === null ? null : (oldMode ?? null), newMode: after === null ? null : (newMode ?? null) });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The real runner: `git` from PATH, in the controlled environment (git-environment.ts: no hooks, filters, textconv or user config). */
/** One long-lived `git cat-file --batch` in `root`, under the same settings and environment as every command (started on its first read). */
export function catFileBatch(root: string, options: readonly string[] = []): GitBlobBatch {
  return new GitBlobBatch(() => spawn('git', [...GIT_SETTINGS, 'cat-file', '--batch', ...options], { cwd: root, env: controlledGitEnvironment({ cwd: root }), stdio: ['pipe', 'pipe', 'ignore'] }));
}

/** A long-lived git command in `root` (every pipe open), under the same settings and environment as every command. */
export function startGit(root: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn('git', [...GIT_SETTINGS, ...args], { cwd: root, env: controlledGitEnvironment({ cwd: root }), stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs git under the controlled settings and environment: through the process's git helper when one runs (`startGitSpawner`), else started here. */
export const runGit: GitRunner = async (args, options) => {
  const env = controlledGitEnvironment({ cwd: options.cwd, ...(options.indexFile === undefined ? {} : { indexFile: options.indexFile }) });
  const helper = gitSpawner();
  if (helper === undefined) return startGitHere(args, options, env);
  const name = args.find((arg) => !arg.startsWith('-')) ?? '';
  const spawned = await helper.run({ args: [...GIT_SETTINGS, ...args], cwd: options.cwd, env, ...(options.input === undefined ? {} : { input: options.input }) }).catch((error: Error) => {
    throw new FileSnapshotGitError(name, error.message, error);
  });
  if (spawned.error !== undefined) throw new FileSnapshotGitError(name, spawned.error);
  if (spawned.code === 0 || (spawned.code !== null && options.okCodes?.includes(spawned.code) === true)) return spawned.stdout;
  throw new FileSnapshotGitError(name, spawned.stderr.toString('utf8'));
};

function startGitHere(args: readonly string[], options: GitRunOptions, env: NodeJS.ProcessEnv): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...GIT_SETTINGS, ...args], { cwd: options.cwd, env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (options.input !== undefined) {
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input);
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    const name = args.find((arg) => !arg.startsWith('-')) ?? '';
    child.on('error', (error) => reject(new FileSnapshotGitError(name, error.message, error)));
    child.on('close', (code) => {
      if (code === 0 || (code !== null && options.okCodes?.includes(code) === true)) resolve(Buffer.concat(stdout));
      else reject(new FileSnapshotGitError(name, Buffer.concat(stderr).toString('utf8')));
    });
  });
}

/** Copies `from` with its access and modification times (git trusts index stat data by them). False when `from` is missing. */
async function copyKeepingTimes(from: string, to: string): Promise<boolean> {
  const source = await stat(from).catch(() => undefined);
  if (source === undefined) return false;
  try {
    await copyFile(from, to);
  } catch {
    return false;
  }
  await utimes(to, source.atime, source.mtime);
  return true;
}
