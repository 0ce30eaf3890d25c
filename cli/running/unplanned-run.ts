import { DagentError, deadRunOwner, endRun, runOwner, type RunRecord } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';

/** `task` as one shell word, for a hint the user may paste. */
export function shellWord(task: string): string {
  return `'${task.replace(/\s+/g, ' ').trim().replace(/'/g, `'\\''`)}'`;
}

/** The command that plans a run's task again. */
export function planAgainHint(run: RunRecord): string {
  return `dagent plan ${shellWord(run.task)}`;
}

/**
 * `run`, `resume` and `approve` of a run that is still `planning` have no plan to work on: refused
 * with what is going on and what to do, which depends on whether its planning process still
 * lives. Does nothing for a run in any other status.
 */
export async function refuseWhilePlanning(context: CliContext, run: RunRecord): Promise<void> {
  if (run.status !== 'planning') return;
  const { db } = await context.store();
  const dead = await deadRunOwner(db, run);
  if (dead !== undefined) {
    throw new DagentError(`run ${run.id} has no plan: the process that was planning it (pid ${dead.pid}) is gone; \`dagent cancel ${run.id}\` closes it, and \`${planAgainHint(run)}\` plans the task again`);
  }
  const owner = await runOwner(db, run.id);
  const where = owner === undefined ? '' : ` (pid ${owner.pid})`;
  throw new DagentError(`run ${run.id} is still being planned${where}: wait for its plan (\`dagent status ${run.id}\`), or \`dagent cancel ${run.id}\` stops the planning`);
}

/**
 * `reject` of a planning run: one whose planning process is gone is closed (cancelled: there was
 * no plan to reject); one still being planned is refused like `run`. Resolves to the line to
 * print, or undefined for a run that is not planning.
 */
export async function rejectWhilePlanning(context: CliContext, run: RunRecord): Promise<string | undefined> {
  if (run.status !== 'planning') return undefined;
  const { db } = await context.store();
  const dead = await deadRunOwner(db, run);
  if (dead === undefined) return refuseWhilePlanning(context, run).then(() => undefined);
  await endRun(db, run.id, { status: 'cancelled', reason: `closed by reject: its planning process (pid ${dead.pid}) had stopped before a plan was made` });
  return `run ${run.id} cancelled: it had no plan to reject, and the process that was planning it (pid ${dead.pid}) is gone; \`${planAgainHint(run)}\` plans the task again`;
}
