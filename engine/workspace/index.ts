/** Node workspaces: a git worktree per node attempt, its change committed and merged onto the run branch in order. */
export { RunWorkspaces, runBranch, type MergeOutcome, type RunWorkspacesOptions } from './run-workspaces.js';
export { NodeWorkspace, type NodeCommit } from './node-workspace.js';
export { conflictHunks, describeConflicts, type ConflictHunk, type MergeConflict } from './merge-conflicts.js';
