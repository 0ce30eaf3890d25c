import { resumeNodes, runOwner, visibleText, type RunRecord } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';

/**
 * `dagent resume` and paused nodes (`dagent pause`). Of a run its process is running: lets the
 * paused nodes (or the one `--node` names) go on, says so, and returns true, the command is done.
 * Of a stopped run: clears the pauses left in its log, so the resumed run does not stop them again,
 * and returns false for the run to be resumed as usual.
 */
export async function resumePausedNodes(context: CliContext, run: RunRecord, nodeId: string | undefined): Promise<boolean> {
  const { db } = await context.store();
  const by = `pid ${process.pid}`;
  const live = run.status === 'running' && (await runOwner(db, run.id))?.alive === true;
  if (!live) {
    if (nodeId !== undefined) await resumeNodes(db, run.id, { nodeId, by });
    await resumeNodes(db, run.id, { by });
    return false;
  }
  const resumed = await resumeNodes(db, run.id, { ...(nodeId === undefined ? {} : { nodeId }), by });
  if (resumed.nodeIds.length === 0) return false;
  const names = resumed.nodeIds.map((id) => visibleText(id)).join(', ');
  if (context.json) writeLine(context.io.stdout, JSON.stringify({ runId: run.id, status: run.status, resumedNodes: resumed.nodeIds }));
  else writeLine(context.io.stdout, `resuming ${names} of run ${run.id}: ${resumed.nodeIds.length === 1 ? 'it goes' : 'they go'} on at once`);
  return true;
}
