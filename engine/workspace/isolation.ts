import { GitWorkingTree, type GitRunner } from '../snapshots/file-git.js';

/** How the nodes of a run share the workspace: each in its own worktree, or all in the one working copy. */
export type IsolationSetting = 'worktree' | 'shared';

export interface IsolationChoice {
  readonly mode: IsolationSetting;
  /** Why, in a few words, for `show` and `doctor`. */
  readonly reason: string;
}

/** What a run gets when `isolation` is not set and the workspace is the top of a git repository; elsewhere it is `shared`. */
export const DEFAULT_ISOLATION: IsolationSetting = 'worktree';

/** The isolation a run gets: what was asked (`DEFAULT_ISOLATION` when nothing was), `shared` where a worktree cannot be made (no git repository at the workspace's top). */
export async function chooseIsolation(setting: IsolationSetting | undefined, workspace: string, git?: GitRunner): Promise<IsolationChoice> {
  if (setting === 'shared') return { mode: 'shared', reason: 'isolation: shared is set' };
  const repository = await GitWorkingTree.detect(workspace, git);
  if (repository === undefined) {
    return { mode: 'shared', reason: setting === undefined ? 'the fallback: the workspace is not the top of a git repository' : 'isolation: worktree is set, but the workspace is not the top of a git repository' };
  }
  repository.close();
  return { mode: 'worktree', reason: setting === 'worktree' ? 'isolation: worktree is set' : 'the default in a git repository' };
}

/** One line saying how nodes run, for `show` and `doctor`. */
export function describeIsolation(choice: IsolationChoice, runId?: string): string {
  return choice.mode === 'worktree'
    ? `isolation: worktree — each node in its own git worktree, its change committed on ${runId === undefined ? 'dagent/<run>' : `dagent/${runId}`} and merged in order (${choice.reason})`
    : `isolation: shared — nodes share the working copy, changes found by snapshots (${choice.reason})`;
}
