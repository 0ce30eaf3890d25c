import { constants, existsSync, readFileSync } from 'node:fs';
import { cp, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { literalPrefix } from '../plan/writes-overlap.js';
import type { GitObjects } from './git-objects.js';

/** The file, in a run's worktrees folder, listing the ignored folders linked into each node workspace (`/node_modules` a line). */
export const LINKED_FOLDERS_FILE = '.linked-folders';

/** `<repo>/.dagent/worktrees/<run>/<node>-<attempt>`. */
const NODE_WORKTREE = /^(.+)\/\.dagent\/worktrees\/[^/]+\/[^/]+$/;

/**
 * The repository folders a node workspace links to (node_modules, a virtualenv), as absolute
 * paths: what a command's sandbox must keep visible, read-only, for the links to lead somewhere.
 * Empty for any folder that is not a node workspace.
 */
export function linkedFolderTargets(workspace: string): string[] {
  const match = NODE_WORKTREE.exec(workspace);
  if (match === null) return [];
  const list = join(dirname(workspace), LINKED_FOLDERS_FILE);
  if (!existsSync(list)) return [];
  return readFileSync(list, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('/') && !line.includes('/../'))
    .map((line) => join(match[1]!, line))
    .filter((path) => existsSync(path));
}

/** At most this many ignored folders are linked into each node workspace. */
const MAX_LINKED_FOLDERS = 200;
/**
 * The ignored folders linked into node workspaces, by name: installed dependencies, which commands
 * read and no node makes. Other ignored folders (build output such as build/ or dist/) are not
 * linked: a node that builds makes its own in its workspace, where a read-only link would refuse
 * the build's writes.
 */
const DEPENDENCY_FOLDERS: ReadonlySet<string> = new Set(['node_modules', '.venv', 'venv', 'vendor', '.yarn', 'bower_components', 'jspm_packages', '.bundle']);

/** The dependency folders git ignores (node_modules, a virtualenv), top-most only, `.dagent` left out. */
export async function ignoredFolders(objects: GitObjects): Promise<string[]> {
  const output = (await objects.git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory'], { cwd: objects.repo })).toString('utf8');
  return output
    .split('\0')
    .filter((path) => path.endsWith('/') && path !== '.dagent/' && !path.startsWith('.dagent/'))
    .map((path) => path.slice(0, -1))
    .filter((path) => DEPENDENCY_FOLDERS.has(path.split('/').at(-1) ?? ''))
    .slice(0, MAX_LINKED_FOLDERS);
}

/** The linked folders a node's writes reach into: a write pattern whose literal start is the folder or lies under it (a bare `**` reaches none). */
export function writableFolders(linked: readonly string[], writes: readonly string[]): Set<string> {
  const prefixes = writes.filter((write) => !write.startsWith('!')).map((write) => literalPrefix(write.replace(/^\.\//, '')));
  return new Set(linked.filter((folder) => prefixes.some((prefix) => prefix === folder || prefix.startsWith(`${folder}/`))));
}

/**
 * Copies an ignored folder of the repository into a node workspace, for a node that writes it. A
 * copy (a copy-on-write clone where the file system has them), never hard links: a hard-linked file
 * is the user's own file, and a command that writes it in place would change the working copy's.
 */
export async function copyFolder(repo: string, workspace: string, folder: string): Promise<void> {
  const target = join(workspace, folder);
  if (!existsSync(dirname(target)) || existsSync(target)) return;
  await cp(join(repo, folder), target, { recursive: true, verbatimSymlinks: true, mode: constants.COPYFILE_FICLONE });
}

/** Links an ignored folder of the repository into a node workspace (where its parent folder exists). */
export async function linkFolder(repo: string, workspace: string, folder: string): Promise<void> {
  const target = join(workspace, folder);
  if (!existsSync(dirname(target)) || existsSync(target)) return;
  await symlink(join(repo, folder), target);
}
