import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { worktreeGitDir } from '../../engine/index.js';

/** A `.git` file is one line; anything longer is not git's. */
const MAX_GIT_FILE_BYTES = 4096;

/**
 * The git folders a command's git reads when the workspace is a linked worktree (a node's own
 * workspace under `isolation: worktree`, or a workspace made by `git worktree add`): its `.git` is
 * a file, `gitdir: <common>/worktrees/<name>`, and that admin folder (HEAD, index) names the common
 * git folder (objects, refs, config) in its `commondir`. Both usually lie outside the workspace, in
 * the main repository's `.git`, which the sandbox's private `/tmp` hides when the repository is
 * there: git then says `not a git repository`. The sandbox mounts these read-only.
 *
 * Real paths of existing folders; the admin folder is left out when it lies in the common one (one
 * mount shows both). Empty when `.git` is a folder (mounted read-only as part of the workspace's
 * protection), absent, or not a `gitdir:` file. Read from the files rather than asked of
 * `git rev-parse`: no git process runs on the repository's config outside the sandbox for each
 * command. The `.git` file itself is read-only to commands, so the path is the one git wrote.
 */
export function worktreeGitFolders(workspace: string): string[] {
  const gitFile = readGitFile(join(workspace, '.git'));
  if (gitFile === undefined) return [];
  const gitDir = existingFolder(worktreeGitDir(workspace, gitFile));
  if (gitDir === undefined) return [];
  const common = readSmallFile(join(gitDir, 'commondir'));
  const commonDir = common === undefined ? undefined : existingFolder(resolve(gitDir, common.trim()));
  if (commonDir === undefined || commonDir === gitDir) return [gitDir];
  return isInside(commonDir, gitDir) ? [commonDir] : [commonDir, gitDir];
}

function readGitFile(path: string): string | undefined {
  const text = readSmallFile(path);
  return text !== undefined && text.startsWith('gitdir: ') ? text : undefined;
}

/** A regular file's text when it is small enough to be git's; a link, a folder or a missing file gives nothing. */
function readSmallFile(path: string): string | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isFile() || stat.size > MAX_GIT_FILE_BYTES) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function existingFolder(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return lstatSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
