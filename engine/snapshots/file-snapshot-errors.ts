import { DagentError } from '../errors.js';

/** `dagent diff` on a run (or node) that recorded no file changes. */
export class NothingToDiffError extends DagentError {
  constructor(readonly runId: string, readonly nodeId?: string) {
    super(
      nodeId === undefined
        ? `run ${runId} changed no files: nothing to diff`
        : `node "${nodeId}" of run ${runId} changed no files: nothing to diff (\`dagent diff ${runId}\` shows the whole run)`,
    );
  }
}

/** The run's workspace folder is gone, so its files cannot be read or restored. */
export class WorkspaceMissingError extends DagentError {
  constructor(readonly workspace: string) {
    super(`the workspace ${workspace} does not exist or is not a folder: pass the run's workspace with --workspace`);
  }
}

/** A git command needed for a snapshot failed: an infrastructure fault, not a user mistake. */
export class FileSnapshotGitError extends DagentError {
  constructor(readonly command: string, readonly stderr: string, cause?: unknown) {
    super(`git ${command} failed while snapshotting the workspace: ${stderr.trim() || 'no output'}`, { cause });
  }
}

/** A stored node boundary that is not one this engine wrote. */
export class InvalidNodeBoundaryError extends DagentError {
  constructor(readonly issues: string) {
    super(`invalid node boundary: ${issues}`);
  }
}

/** A snapshot path that would lead out of the workspace or into `.git/` or `.dagent/`. */
export class UnsafeSnapshotPathError extends DagentError {
  constructor(readonly path: string) {
    super(`refusing to touch "${path}": snapshot paths must stay inside the workspace and out of .git/ and .dagent/`);
  }
}

/** `revert` on a run whose nodes may still be writing its files. */
export class RunStillRunningError extends DagentError {
  constructor(readonly runId: string) {
    super(`run ${runId} is running: its nodes may still write these files; wait for it or \`dagent cancel ${runId}\` first (--force reverts anyway)`);
  }
}

/** Restoring a path whose folders include a symbolic link (or a file): writing there could land outside the workspace. */
export class SnapshotPathThroughLinkError extends DagentError {
  constructor(readonly path: string, readonly reason: string) {
    super(`refusing to write "${path}": ${reason}, and snapshots never write through one`);
  }
}
