import { runGit, type GitRunner } from './file-git.js';

/**
 * Whether the git repository `workspace` is in holds `path` as committed at HEAD with content
 * other than the file has now: then `git checkout HEAD -- PATH` puts that copy back, where a revert
 * that does not hold the file's content before cannot. False outside a repository, before its
 * first commit, for a path not committed or committed as it is now, and when git fails (it only
 * says what else the user can try).
 */
export async function hasOtherCommittedCopy(workspace: string, path: string, git: GitRunner = runGit): Promise<boolean> {
  // `./`: the path from the workspace, which may be a folder inside the repository.
  const spec = `./${path}`;
  try {
    const committed = await git(['rev-parse', '--verify', '--quiet', `HEAD:${spec}`], { cwd: workspace, okCodes: [1, 128] });
    if (committed.toString('utf8').trim() === '') return false;
    const differs = await git(['diff', '--name-only', 'HEAD', '--', spec], { cwd: workspace });
    return differs.toString('utf8').trim() !== '';
  } catch {
    return false;
  }
}
