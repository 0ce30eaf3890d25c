import { PATHS_PER_COMMAND, parseTreeListing, runGit, type GitEntry, type GitRunner } from '../snapshots/file-git.js';

/** A full object id (SHA-1 or SHA-256), not a name that could point elsewhere later. */
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Who dagent's commits are by: git needs a name, and the user's own config is not read (git-environment.ts). */
const IDENTITY = ['-c', 'user.name=dagent', '-c', 'user.email=dagent@localhost'];

/** The few git plumbing calls the workspaces use, in one repository. */
export class GitObjects {
  readonly repo: string;
  readonly git: GitRunner;
  /** The tree of each commit made or looked up here: a commit never changes, so neither does its tree. */
  readonly #trees = new Map<string, string>();

  constructor(repo: string, git: GitRunner = runGit) {
    this.repo = repo;
    this.git = git;
  }

  async text(args: readonly string[], cwd = this.repo, indexFile?: string): Promise<string> {
    return (await this.git(args, { cwd, ...(indexFile === undefined ? {} : { indexFile }) })).toString('utf8').trim();
  }

  /**
   * Runs git in a worktree of the repository (`git -C`), from the repository itself: the
   * controlled environment is worked out once for the repository, not again for every worktree.
   */
  async inWorktree(worktree: string, args: readonly string[]): Promise<string> {
    return (await this.git(['-C', worktree, ...args], { cwd: this.repo })).toString('utf8').trim();
  }

  /** The commit a name points at, or undefined. */
  async commitOf(name: string): Promise<string | undefined> {
    const output = await this.git(['rev-parse', '--verify', '-q', `${name}^{commit}`], { cwd: this.repo, okCodes: [1, 128] });
    const id = output.toString('utf8').trim();
    return id === '' ? undefined : id;
  }

  /** The tree of a commit (by its id; a name such as a branch is looked up each time). */
  async treeOf(commit: string): Promise<string> {
    const known = this.#trees.get(commit);
    if (known !== undefined) return known;
    const tree = await this.text(['rev-parse', `${commit}^{tree}`]);
    if (COMMIT_ID.test(commit)) this.#trees.set(commit, tree);
    return tree;
  }

  async commitTree(tree: string, parents: readonly string[], message: string): Promise<string> {
    const commit = await this.text([...IDENTITY, 'commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent]), '-m', message]);
    this.#trees.set(commit, tree);
    return commit;
  }

  /** Moves `ref` to `to` only if it still points at `from` (undefined: only if it does not exist yet). */
  async moveRef(ref: string, to: string, from: string | undefined): Promise<void> {
    await this.git(['update-ref', '-m', 'dagent', ref, to, from ?? ''], { cwd: this.repo });
  }

  /** Paths that differ between two trees or commits, sorted. */
  async changedPaths(from: string, to: string): Promise<string[]> {
    if (from === to) return [];
    const output = await this.git(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to], { cwd: this.repo });
    return output.toString('utf8').split('\0').filter((path) => path !== '').sort();
  }

  /** A path's entry in a tree-ish, its bytes read: null when the tree has no file there. */
  async entryAt(treeish: string, path: string): Promise<TreeEntry | null> {
    return (await this.entriesAt(treeish, [path])).get(path) ?? null;
  }

  /**
   * The entries of several paths in a tree-ish, their bytes read (null where the tree has no file):
   * one `ls-tree` per 500 paths and one `cat-file --batch`, however many paths there are.
   */
  async entriesAt(treeish: string, paths: readonly string[]): Promise<Map<string, TreeEntry | null>> {
    const entries = new Map<string, TreeEntry | null>(paths.map((path) => [path, null]));
    const listed = new Map<string, GitEntry>();
    for (let from = 0; from < paths.length; from += PATHS_PER_COMMAND) {
      const chunk = paths.slice(from, from + PATHS_PER_COMMAND);
      parseTreeListing(await this.git(['--literal-pathspecs', 'ls-tree', '-z', treeish, '--', ...chunk], { cwd: this.repo }), listed);
    }
    const blobs = [...listed].filter(([path]) => entries.has(path));
    if (blobs.length === 0) return entries;
    const output = await this.git(['cat-file', '--batch'], { cwd: this.repo, input: Buffer.from(blobs.map(([, entry]) => `${entry.blob}\n`).join('')) });
    // Each answer: `<id> blob <size>\n`, the bytes, then a newline.
    let offset = 0;
    for (const [path, entry] of blobs) {
      const headerEnd = output.indexOf(0x0a, offset);
      const [id, type, size] = output.subarray(offset, headerEnd).toString('utf8').split(' ');
      if (id !== entry.blob || type !== 'blob') throw new Error(`git cat-file --batch: ${path}: ${output.subarray(offset, headerEnd).toString('utf8')}`);
      const start = headerEnd + 1;
      entries.set(path, { mode: entry.mode, bytes: Buffer.from(output.subarray(start, start + Number(size))) });
      offset = start + Number(size) + 1;
    }
    return entries;
  }
}

/** A file in a git tree: its mode (`100644`, `100755`, `120000` for a link) and content. */
export interface TreeEntry {
  readonly mode: string;
  readonly bytes: Buffer;
}
