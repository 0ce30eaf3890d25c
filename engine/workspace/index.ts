/** Node workspaces: a git worktree per node attempt, its change committed and merged onto the run branch in order. */
export { RunWorkspaces, runBranch, type RunWorkspacesOptions } from './run-workspaces.js';
export type { MergeOutcome } from './merge-conflicts.js';
export { NodeWorkspace, type NodeCommit } from './node-workspace.js';
export { conflictHunks, describeConflicts, type ConflictHunk, type MergeConflict } from './merge-conflicts.js';
export { WorktreeNodeFiles, type WorktreeBoundary, type WorktreeEndOptions, type WorktreeNodeEnd, type WorktreeNodeFilesOptions } from './worktree-node-files.js';
export { deliverChange, type DeliveredFile, type Delivery } from './working-copy-delivery.js';
export { chooseIsolation, describeIsolation, type IsolationChoice, type IsolationSetting } from './isolation.js';
export { LINKED_FOLDERS_FILE, linkedFolderTargets } from './linked-folders.js';
export { worktreeGitDir } from './worktree-reuse.js';
