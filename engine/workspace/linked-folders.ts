import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
