import { existsSync } from 'node:fs';
import { NothingToDiffError, diffRun, revertRun, runLog, visibleText, type Plan, type RunRecord, type Store } from '../../engine/index.js';

/** A node the plan no longer has whose change is still in the workspace. */
export interface DroppedChange {
  readonly nodeId: string;
  /** The files `dagent revert --node` would put back (or finds edited since in its lines). */
  readonly files: readonly string[];
}

/**
 * The nodes that ran, changed files still changed in the workspace, and are not in `plan`: a plan
 * version that drops a node does not undo what it did. Found with the whole run's diff (which
 * nodes changed the files that differ now) and, for each such node, a dry run of its revert (so a
 * node whose own change was reverted, or overwritten since, is not named). Empty when the run
 * changed no file or its workspace is gone.
 */
export async function droppedChanges(db: Store['db'], run: RunRecord, plan: Plan): Promise<DroppedChange[]> {
  if (!existsSync(run.workspace)) return [];
  const planned = new Set(plan.nodes.map((node) => node.id));
  let changedBy: Set<string>;
  try {
    const diff = await diffRun(db, run.id, run.workspace);
    changedBy = new Set(diff.files.flatMap((file) => file.nodeIds).filter((nodeId) => !planned.has(nodeId)));
  } catch (error) {
    if (error instanceof NothingToDiffError) return [];
    throw error;
  }
  const dropped: DroppedChange[] = [];
  for (const nodeId of [...changedBy].sort()) {
    const outcome = await revertRun(db, run.id, run.workspace, { nodeId, dryRun: true, log: runLog(db, run.id) });
    const files = [...outcome.restored.map((file) => file.path), ...outcome.conflicted.map((conflict) => conflict.path)].sort();
    if (files.length > 0) dropped.push({ nodeId, files });
  }
  return dropped;
}

/** One line per dropped node: its files stay changed, and the exact command that undoes them. */
export function droppedChangeLines(runId: string, dropped: readonly DroppedChange[]): string[] {
  return dropped.map(({ nodeId, files }) => {
    const node = visibleText(nodeId);
    return `note: ${node} is not in this plan, but the change it made stays in the workspace (${visibleText(files.join(', '))}); dropping a node does not undo it: \`dagent revert ${runId} --node ${node}\` does`;
  });
}
