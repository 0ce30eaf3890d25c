import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FileSnapshots, RunWorkspaces, WorktreeNodeFiles, chooseIsolation, describeIsolation, type IsolationChoice, type NodeFiles, type RunRecord } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';

/** Said once by `run --workers` in a workspace without git, whose workers do not scan it around commands (`FileSnapshotsOptions.commandWindows`). */
export const WORKERS_WITHOUT_GIT =
  "warning: this workspace is not a git repository, so what the nodes' commands change outside their declared writes on workers is not recorded (each worker would take the others' changes for its own): `git init` in the workspace before the run records it, or run without --workers";

/**
 * How a run's nodes get their files: isolated (a worktree each, merged onto `dagent/<run>`) or
 * shared (snapshots of the one working copy), as `isolation` says and the workspace allows.
 * Runs spread over workers share the working copy (or each worker's clone). `notice`, the one line
 * that says so, is given only when the user set `isolation: worktree`: worktrees by default are
 * not something a user who set nothing asked for, so `--workers` alone runs quietly (its
 * isolation is still said by `show`).
 */
export async function runNodeFiles(context: CliContext, run: RunRecord, options: { readonly workers: boolean }): Promise<{ files: NodeFiles; isolation: IsolationChoice; notice?: string }> {
  const { db } = await context.store();
  const chosen = await chooseIsolation(context.config.isolation, run.workspace);
  if (options.workers && !existsSync(join(run.workspace, '.git'))) return { files: new FileSnapshots({ db, runId: run.id, workspace: run.workspace }), isolation: { mode: 'shared', reason: 'nodes run on workers' }, notice: WORKERS_WITHOUT_GIT };
  if (options.workers && chosen.mode === 'worktree') {
    const isolation: IsolationChoice = { mode: 'shared', reason: `nodes run on workers; ${chosen.reason}, but worktrees are made only for runs without --workers` };
    const notice = context.config.isolation === 'worktree' ? describeIsolation(isolation, run.id) : undefined;
    return { files: new FileSnapshots({ db, runId: run.id, workspace: run.workspace }), isolation, ...(notice === undefined ? {} : { notice }) };
  }
  const isolation: IsolationChoice = options.workers ? { mode: 'shared', reason: 'nodes run on workers' } : chosen;
  if (isolation.mode === 'shared') return { files: new FileSnapshots({ db, runId: run.id, workspace: run.workspace }), isolation };
  const workspaces = await RunWorkspaces.open({ repo: run.workspace, runId: run.id, prepareView: true });
  return { files: new WorktreeNodeFiles({ db, runId: run.id, workspaces }), isolation };
}
