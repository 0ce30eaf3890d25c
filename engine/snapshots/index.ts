/** File snapshots per node, and the diff and revert of a run built from them. */
export { FileSnapshots, MAX_EAGER_SNAPSHOT_FILE_BYTES, MAX_EAGER_SNAPSHOT_TOTAL_BYTES, type FileSnapshotsOptions } from './file-snapshots.js';
export type { EndNodeOptions, NodeEnd, NodeRestore } from './node-file-outcomes.js';
export { nodeBoundarySchema, parseNodeBoundary, type NodeBoundary } from './file-node-boundary.js';
export { createWriteSet, writeSetRefusal, type WriteSet } from './file-write-set.js';
export { recoverStoppedScans, type RecoveredNodeChange } from './file-scan-recovery.js';
export { diffRun, type DiffRunOptions } from './file-diff.js';
export { DIFF_CONTEXT_LINES, fileDiff, renderFileDiff, renderUnifiedDiff, type DiffHunk, type FileChangeKind, type FileDiff, type FileDiffContent, type RunDiff } from './file-diff-render.js';
export { revertRun, type RevertAction, type RevertConflict, type RevertOutcome, type RevertRemedy, type RevertRunOptions, type RevertedFile } from './file-revert.js';
export { revertStep, type RevertStep, type RevertStepInput } from './file-revert-step.js';
export { FileSnapshotGitError, InvalidNodeBoundaryError, NothingToDiffError, RunStillRunningError, SnapshotPathThroughLinkError, UnsafeSnapshotPathError, WorkspaceMissingError } from './file-snapshot-errors.js';
export { ABSENT_FILE_HASH, listSnapshots, type FileSnapshot, type FileSnapshotKey } from './file-snapshot-rows.js';
export { ABSENT_FILE, fileStateOf, linkStateOf, type FileState } from './file-state.js';
export { isBinaryContent, type FileContentEncoding } from './file-content.js';
export { DAGENT_TEMP_FILE_GLOB, isDagentTempFile } from './temp-file-name.js';
export { GitWorkingTree, type GitRunner } from './file-git.js';
export { GitSpawner, gitSpawner, startGitSpawner, type SpawnedGit } from './git-spawner.js';
export { CONTROLLED_GIT_CONFIG, controlledGitEnvironment, type GitEnvironmentOptions } from './git-environment.js';
