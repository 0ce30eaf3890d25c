import { lstat, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isDagentTempFile } from '../../engine/index.js';
import { isIgnored, parseGitignore, type GitignoreRules } from './gitignore-rules.js';

/** Folders never listed, wherever they are: version control, dependencies, dagent's own state. */
export const ALWAYS_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules', '.dagent']);

export interface WorkspaceFile {
  /** Workspace-relative, `/`-separated. */
  readonly path: string;
  readonly size: number;
  /** Last modification, in milliseconds (with `size`, how the scan cache tells an edited file). */
  readonly mtimeMs: number;
}

export interface ListWorkspaceFilesOptions {
  /** Extra gitignore-style patterns, anchored at the root (e.g. from the project's config). */
  readonly ignore?: readonly string[];
  readonly signal?: AbortSignal;
}

/**
 * The workspace's files, sorted by path, as git would see them: `.git/info/exclude`, the root
 * `.gitignore` and every nested `.gitignore` are honoured, and `.git`, `node_modules` and
 * `.dagent` are skipped. Symbolic links are not followed (a link may lead out of the workspace
 * or into a cycle); they are not listed.
 */
export async function listWorkspaceFiles(root: string, options: ListWorkspaceFilesOptions = {}): Promise<WorkspaceFile[]> {
  const rootRules: GitignoreRules[] = [];
  const exclude = await readTextIfPresent(join(root, '.git', 'info', 'exclude'));
  if (exclude !== undefined) rootRules.push(parseGitignore('', exclude));
  if (options.ignore !== undefined && options.ignore.length > 0) rootRules.push(parseGitignore('', options.ignore.join('\n')));

  const files: WorkspaceFile[] = [];
  await walk(root, '', rootRules, files, options.signal);
  return files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

async function walk(root: string, directory: string, inherited: readonly GitignoreRules[], files: WorkspaceFile[], signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  const absolute = directory === '' ? root : join(root, directory);
  const ownRules = await readTextIfPresent(join(absolute, '.gitignore'));
  const rules = ownRules === undefined ? inherited : [...inherited, parseGitignore(directory, ownRules)];
  const entries = await readdir(absolute, { withFileTypes: true });

  const subdirectories: string[] = [];
  const found: Promise<WorkspaceFile | undefined>[] = [];
  for (const entry of entries) {
    const path = directory === '' ? entry.name : `${directory}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!ALWAYS_SKIPPED_DIRECTORIES.has(entry.name) && !isIgnored(rules, path, true)) subdirectories.push(path);
    } else if (entry.isFile() && !isDagentTempFile(entry.name) && !isIgnored(rules, path, false)) {
      // A file removed or renamed between the listing and this look is simply not there.
      found.push(lstat(join(root, path)).then((stats) => ({ path, size: stats.size, mtimeMs: stats.mtimeMs }), (error: unknown) => (isMissing(error) ? undefined : Promise.reject(error))));
    }
  }
  for (const file of await Promise.all(found)) if (file !== undefined) files.push(file);
  await Promise.all(subdirectories.map((subdirectory) => walk(root, subdirectory, rules, files, signal)));
}

async function readTextIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
