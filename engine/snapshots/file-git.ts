import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, lstat, mkdir, realpath, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { FileSnapshotGitError } from './file-snapshot-errors.js';

/** Runs one git command in `cwd` and resolves with its stdout; rejects with `FileSnapshotGitError`. */
export type GitRunner = (args: readonly string[], options: { readonly cwd: string; readonly indexFile?: string }) => Promise<Buffer>;

/** One path that differs between two trees. Blob ids are null on the side where the path is absent. */
export interface GitTreeChange {
  readonly path: string;
  readonly oldBlob: string | null;
  readonly newBlob: string | null;
}

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

  constructor(root: string, git: GitRunner = runGit) {
    this.root = root;
    this.#git = git;
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
      await this.#git(['add', '-A', '--', '.', ':(exclude).dagent', ':(exclude,glob)**/.*.dagent-tmp'], { cwd: this.root, indexFile });
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
    return this.#git(['cat-file', '--filters', `--path=${path}`, blob], { cwd: this.root });
  }

  async #hasHead(): Promise<boolean> {
    return this.#git(['rev-parse', '--verify', '--quiet', 'HEAD^{tree}'], { cwd: this.root }).then(
      () => true,
      () => false,
    );
  }
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
    changes.push({
      path,
      oldBlob: oldBlob === undefined || NULL_BLOB.test(oldBlob) ? null : oldBlob,
      newBlob: newBlob === undefined || NULL_BLOB.test(newBlob) ? null : newBlob,
    });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The real runner: `git` from PATH, with the user's `GIT_*` variables removed so none redirects it. */
export const runGit: GitRunner = (args, options) =>
  new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
    if (options.indexFile !== undefined) env.GIT_INDEX_FILE = options.indexFile;
    env.GIT_OPTIONAL_LOCKS = '0';
    const child = spawn('git', [...GIT_SETTINGS, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => reject(new FileSnapshotGitError(args[0] ?? '', error.message, error)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(stdout));
      else reject(new FileSnapshotGitError(args[0] ?? '', Buffer.concat(stderr).toString('utf8')));
    });
  });

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
