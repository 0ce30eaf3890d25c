import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { runLog } from '../../session/run-log.js';
import { recoverStoppedScans, type RecoveredNodeChange } from '../../snapshots/file-scan-recovery.js';
import type { RunStatus } from '../storage/run-status.js';
import { deadRunOwner, needsLivingProcess } from './run-owner.js';

/** Why `files/recovered` was written. */
export const RECOVERED_AFTER_CRASH = 'its process was killed before it recorded what its commands changed';

/**
 * Records what a run's commands changed when its process was killed mid-command (a react run in a
 * workspace without git: `recoverStoppedScans`), once no process holds the run (its process is
 * gone, or the run ended, as `dagent cancel` ends it): the changes become the node's snapshots,
 * which `diff` and `revert` take, and each node with a change gets a `files/recovered` event.
 * Nothing happens while the run's process lives, nor for a run that left no scan. Returns the
 * nodes whose changes were recovered now.
 */
export async function recoverStoppedRunFiles(
  db: Kysely<Database>,
  run: { readonly id: string; readonly status: RunStatus },
  workspace: string,
): Promise<RecoveredNodeChange[]> {
  if (needsLivingProcess(run.status) && (await deadRunOwner(db, run)) === undefined) return [];
  const recovered = (await recoverStoppedScans(db, run.id, workspace)).filter((node) => node.filesChanged.length > 0);
  const log = runLog(db, run.id);
  for (const node of recovered) await log.append({ type: 'files/recovered', nodeId: node.nodeId, payload: { files: [...node.filesChanged], reason: RECOVERED_AFTER_CRASH } });
  return recovered;
}
