import { PATHS_PER_COMMAND, catFileBatch, parseTreeListing, runGit, startGit, type GitEntry, type GitRunner } from '../snapshots/file-git.js';
import type { GitBlobBatch } from '../snapshots/git-blob-batch.js';
import { looseObjectFolder, writeLooseObject } from '../snapshots/loose-objects.js';
import { GitRefUpdates } from './git-ref-updates.js';

/** A full object id (SHA-1 or SHA-256), not a name that could point elsewhere later. */
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A SHA-1 object id: what a commit written in-process may name. */
const SHA1_ID = /^[0-9a-f]{40}$/;

/** Who dagent's commits are by: git needs a name, and the user's own config is not read (git-environment.ts). */
const IDENTITY = ['-c', 'user.name=dagent', '-c', 'user.email=dagent@localhost'];
const AUTHOR = 'dagent <dagent@localhost>';

/** A commit object's text as `git commit-tree -m` writes it, dated now in the local zone. */
function commitText(tree: string, parents: readonly string[], message: string, now = new Date()): string {
  const offset = -now.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}${String(Math.abs(offset) % 60).padStart(2, '0')}`;
  const when = `${Math.floor(now.getTime() / 1000)} ${zone}`;
  const body = message.endsWith('\n') ? message : `${message}\n`;
  return `tree ${tree}\n${parents.map((parent) => `parent ${parent}\n`).join('')}author ${AUTHOR} ${when}\ncommitter ${AUTHOR} ${when}\n\n${body}`;
}

/** A tree object's entry: its mode as git stores it (`40000` for a tree, `160000` for a submodule's commit) and its id. */
interface TreeItem {
  readonly mode: string;
  readonly id: string;
}

const TREE_MODE = '40000';
const GITLINK_MODE = '160000';

/**
 * The few git plumbing calls the workspaces use, in one repository. With the real git, what is
 * read by object id (a commit's tree, the paths two trees differ in, files' entries and bytes)
 * goes through one long-lived `git cat-file --batch` instead of a command each: starting a
 * process costs 4–8 ms here, and an isolated node made some twenty. Names (a branch, `HEAD`)
 * and anything the batch cannot answer still take a command.
 */
export class GitObjects {
  readonly repo: string;
  readonly git: GitRunner;
  /** The tree of each commit made or looked up here: a commit never changes, so neither does its tree. */
  readonly #trees = new Map<string, string>();
  /** Reads objects by id; undefined when a runner was given (a test's runner sees every command). */
  readonly #batch: GitBlobBatch | undefined;
  /** Moves refs; undefined when a runner was given. */
  readonly #refs: GitRefUpdates | undefined;
  /** Where commit objects are written in-process (a SHA-1 repository, the real git); undefined: by `git commit-tree`. */
  #store: Promise<string | undefined> | undefined;

  constructor(repo: string, git: GitRunner = runGit) {
    this.repo = repo;
    this.git = git;
    this.#batch = git === runGit ? catFileBatch(repo) : undefined;
    this.#refs = git === runGit ? new GitRefUpdates(() => startGit(repo, ['update-ref', '-m', 'dagent', '--stdin'])) : undefined;
  }

  /** Stops the long-lived `git cat-file` and `git update-ref`, if they started; later calls take a command each. */
  close(): void {
    this.#batch?.close();
    this.#refs?.close();
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
    const tree = (COMMIT_ID.test(commit) ? await this.#treeIdOf(commit) : undefined) ?? (await this.text(['rev-parse', `${commit}^{tree}`]));
    if (COMMIT_ID.test(commit)) this.#trees.set(commit, tree);
    return tree;
  }

  /**
   * Commits `tree` on top of `parents`, by dagent. With the real git in a SHA-1 repository, the
   * commit object is written here (what `git commit-tree -m` writes: the tree, the parents, the
   * author and committer with the local time and zone, the message and a newline); otherwise by
   * `git commit-tree`. Either way nothing is signed: these are dagent's own bookkeeping commits.
   */
  async commitTree(tree: string, parents: readonly string[], message: string): Promise<string> {
    const store = await this.#objectFolder();
    const commit =
      store !== undefined && [tree, ...parents].every((id) => SHA1_ID.test(id))
        ? writeLooseObject(store, 'commit', Buffer.from(commitText(tree, parents, message), 'utf8'))
        : await this.text([...IDENTITY, '-c', 'commit.gpgSign=false', 'commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent]), '-m', message]);
    this.#trees.set(commit, tree);
    return commit;
  }

  /**
   * `commit` merged onto `head` (three-way, from `start`, their merge base): the merged tree and
   * the paths that conflict (none when the merge is clean; where there are some, the tree holds
   * both sides' lines of them between conflict markers). Changes to different paths merge here
   * (`mergeTrees`), without a git process; the rest is `git merge-tree`'s.
   */
  async mergeCommits(start: string, head: string, commit: string): Promise<{ tree: string; conflicted: string[] }> {
    const [base, ours, theirs] = await Promise.all([this.treeOf(start), this.treeOf(head), this.treeOf(commit)]);
    const merged = await this.mergeTrees(base, ours, theirs);
    if (merged !== undefined) return { tree: merged, conflicted: [] };
    const output = (await this.git(['merge-tree', '--write-tree', '--name-only', '--no-messages', head, commit], { cwd: this.repo, okCodes: [1] })).toString('utf8');
    const [tree = '', ...conflicted] = output.split('\n').filter((line) => line !== '');
    return { tree, conflicted: [...new Set(conflicted)] };
  }

  /**
   * The three-way merge of trees `ours` and `theirs` from `base`, when no path changed on both
   * sides (a folder changed on both is merged inside): each path takes the side that changed it,
   * and a folder left empty goes. That is what `git merge-tree` writes for such changes (no side
   * renamed a folder the other added to: that changes the folder on both sides). Written here
   * (SHA-1, the real git); undefined when a path changed on both sides, or it cannot be written
   * here: git's merge decides those.
   */
  async mergeTrees(base: string, ours: string, theirs: string): Promise<string | undefined> {
    const store = this.#reading() ? await this.#objectFolder() : undefined;
    if (store === undefined || ![base, ours, theirs].every((id) => SHA1_ID.test(id))) return undefined;
    const merged = await this.#mergeTree(store, base, ours, theirs).catch(() => undefined);
    return merged === null ? writeLooseObject(store, 'tree', Buffer.alloc(0)) : merged;
  }

  /** One folder's three-way merge (`base` undefined: both sides added it): its tree's id, null when it is left empty, undefined when a path in it changed on both sides. */
  async #mergeTree(store: string, base: string | undefined, ours: string, theirs: string): Promise<string | null | undefined> {
    if (ours === theirs || base === theirs) return ours;
    if (base === ours) return theirs;
    const [before, mine, yours] = await Promise.all([base === undefined ? new Map<string, TreeItem>() : this.#tree(base), this.#tree(ours), this.#tree(theirs)]);
    const merged = new Map<string, TreeItem>();
    for (const name of new Set([...before.keys(), ...mine.keys(), ...yours.keys()])) {
      const [b, o, t] = [before.get(name), mine.get(name), yours.get(name)];
      let item: TreeItem | undefined;
      if (sameItem(o, t) || sameItem(b, t)) item = o;
      else if (sameItem(b, o)) item = t;
      else if (o?.mode === TREE_MODE && t?.mode === TREE_MODE && (b === undefined || b.mode === TREE_MODE)) {
        const folder = await this.#mergeTree(store, b?.id, o.id, t.id);
        if (folder === undefined) return undefined;
        item = folder === null ? undefined : { mode: TREE_MODE, id: folder };
      } else return undefined;
      if (item !== undefined) merged.set(name, item);
    }
    return merged.size === 0 ? null : writeLooseObject(store, 'tree', treeObject(merged));
  }

  /** Moves `ref` to `to` only if it still points at `from` (undefined: only if it does not exist yet; 'anywhere': wherever it points). */
  async moveRef(ref: string, to: string, from: string | undefined | 'anywhere'): Promise<void> {
    if (this.#refs !== undefined && !this.#refs.closed) return this.#refs.move(ref, to, from);
    await this.git(['update-ref', '-m', 'dagent', ref, to, ...(from === 'anywhere' ? [] : [from ?? ''])], { cwd: this.repo });
  }

  /** Paths that differ between two trees or commits, sorted. */
  async changedPaths(from: string, to: string): Promise<string[]> {
    if (from === to) return [];
    if (this.#reading() && COMMIT_ID.test(from) && COMMIT_ID.test(to)) {
      const [before, after] = await Promise.all([this.treeOf(from), this.treeOf(to)]);
      const paths = await this.#treeChanges(before, after, '').catch(() => undefined);
      if (paths !== undefined) return paths.sort();
    }
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
    if (this.#reading() && COMMIT_ID.test(treeish)) {
      const read = await this.#readEntries(treeish, paths).catch(() => undefined);
      if (read !== undefined) return read;
    }
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

  /** Starts finding out where commits are written, so that the first commit does not wait for it. */
  prepareCommits(): void {
    void this.#objectFolder();
  }

  #objectFolder(): Promise<string | undefined> {
    this.#store ??= this.#batch === undefined ? Promise.resolve(undefined) : looseObjectFolder(this.repo, this.git);
    return this.#store;
  }

  #reading(): boolean {
    return this.#batch !== undefined && !this.#batch.failed;
  }

  /** The tree of a commit (or a tree itself) by its id, from the batch; undefined when it cannot tell. */
  async #treeIdOf(id: string): Promise<string | undefined> {
    if (!this.#reading()) return undefined;
    const object = await this.#batch!.object(id).catch(() => undefined);
    if (object?.type === 'tree') return id;
    if (object?.type !== 'commit') return undefined;
    return /^tree ([0-9a-f]+)\n/.exec(object.bytes.toString('latin1'))?.[1];
  }

  async #tree(id: string): Promise<Map<string, TreeItem>> {
    const object = await this.#batch!.object(id);
    if (object.type !== 'tree') throw new Error(`git cat-file --batch: ${id} is a ${object.type}`);
    return parseTreeObject(object.bytes, id.length / 2);
  }

  /** The paths of files (links, submodules) that differ between two trees, as `git diff-tree -r --name-only` lists them, unsorted. */
  async #treeChanges(before: string | undefined, after: string | undefined, prefix: string): Promise<string[]> {
    if (before === after) return [];
    const [old, now] = await Promise.all([before === undefined ? new Map<string, TreeItem>() : this.#tree(before), after === undefined ? new Map<string, TreeItem>() : this.#tree(after)]);
    const changes = await Promise.all(
      [...new Set([...old.keys(), ...now.keys()])].map(async (name) => {
        const [a, b] = [old.get(name), now.get(name)];
        if (a?.id === b?.id && a?.mode === b?.mode) return [];
        const path = `${prefix}${name}`;
        const [aTree, bTree] = [a?.mode === TREE_MODE, b?.mode === TREE_MODE];
        // A file on either side is a changed path; a folder on either side, every file under it that changed.
        const files = (a !== undefined && !aTree) || (b !== undefined && !bTree) ? [path] : [];
        return aTree || bTree ? [...files, ...(await this.#treeChanges(aTree ? a!.id : undefined, bTree ? b!.id : undefined, `${path}/`))] : files;
      }),
    );
    return changes.flat();
  }

  async #readEntries(treeish: string, paths: readonly string[]): Promise<Map<string, TreeEntry | null>> {
    const root = await this.treeOf(treeish);
    const trees = new Map<string, Promise<Map<string, TreeItem>>>();
    const treeAt = (id: string): Promise<Map<string, TreeItem>> => trees.get(id) ?? trees.set(id, this.#tree(id)).get(id)!;
    const found = await Promise.all(
      paths.map(async (path): Promise<TreeEntry | null> => {
        const names = path.split('/');
        let item: TreeItem | undefined = { mode: TREE_MODE, id: root };
        for (const name of names) {
          if (item === undefined || item.mode !== TREE_MODE || name === '') return null;
          item = (await treeAt(item.id)).get(name);
        }
        if (item === undefined || item.mode === TREE_MODE || item.mode === GITLINK_MODE) return null;
        const blob = await this.#batch!.object(item.id);
        if (blob.type !== 'blob') throw new Error(`git cat-file --batch: ${path}: ${item.id} is a ${blob.type}`);
        return { mode: item.mode, bytes: blob.bytes };
      }),
    );
    return new Map(paths.map((path, index) => [path, found[index]!]));
  }
}

function sameItem(a: TreeItem | undefined, b: TreeItem | undefined): boolean {
  return a?.id === b?.id && a?.mode === b?.mode;
}

/** A tree object's bytes: its entries in git's order (by name, a folder's name as if it ended in `/`), each `<mode> <name>\0<raw id>`. */
function treeObject(items: ReadonlyMap<string, TreeItem>): Buffer {
  const sortKey = (name: string, item: TreeItem): Buffer => Buffer.from(item.mode === TREE_MODE ? `${name}/` : name, 'utf8');
  const sorted = [...items].sort(([a, itemA], [b, itemB]) => Buffer.compare(sortKey(a, itemA), sortKey(b, itemB)));
  return Buffer.concat(sorted.flatMap(([name, item]) => [Buffer.from(`${item.mode} ${name}\0`, 'utf8'), Buffer.from(item.id, 'hex')]));
}

/** Parses a tree object: `<mode> <name>\0<id, idBytes raw bytes>`, repeated. */
export function parseTreeObject(bytes: Buffer, idBytes: number): Map<string, TreeItem> {
  const items = new Map<string, TreeItem>();
  let offset = 0;
  while (offset < bytes.length) {
    const space = bytes.indexOf(0x20, offset);
    const nul = bytes.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 1 + idBytes > bytes.length) throw new Error('git tree object: cut short');
    items.set(bytes.toString('utf8', space + 1, nul), { mode: bytes.toString('latin1', offset, space), id: bytes.toString('hex', nul + 1, nul + 1 + idBytes) });
    offset = nul + 1 + idBytes;
  }
  return items;
}

/** A file in a git tree: its mode (`100644`, `100755`, `120000` for a link) and content. */
export interface TreeEntry {
  readonly mode: string;
  readonly bytes: Buffer;
}
