import { needsLivingProcess, recoverStoppedRunFiles, visibleText, type RunStatus } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { plural } from '../render/index.js';

/**
 * Records what a run's commands changed when its process was killed mid-command
 * (`recoverStoppedRunFiles`) before `diff`, `revert` or `cancel` reads or ends the run, and says
 * so on stderr: the files are the run's change from now on. Nothing is said when nothing was left
 * to recover (the usual case: the run recorded its own end).
 */
export async function recoverKilledRunFiles(context: CliContext, run: { readonly id: string; readonly status: RunStatus }, workspace: string): Promise<void> {
  const { db } = await context.store();
  const recovered = await recoverStoppedRunFiles(db, run, workspace);
  const files = [...new Set(recovered.flatMap((node) => node.filesChanged))].sort();
  if (files.length === 0 || context.json) return;
  // A run whose process is gone is still `running` until `cancel` closes it, and `revert` refuses a running run.
  const undo = needsLivingProcess(run.status) ? `close the run with dagent cancel ${run.id}, then undo them with dagent revert ${run.id}` : `undo them with dagent revert ${run.id}`;
  writeLine(context.io.stderr, `recovered after a crash: run ${run.id}'s process was killed mid-command; what it had changed is recorded now (${plural(files.length, 'file')}: ${visibleText(files.join(', '))}); ${undo}`);
}
