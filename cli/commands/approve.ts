import { approvePlan, getRun, readEvents, rejectPlan, type RunStatus } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { refuseWhilePlanning, rejectWhilePlanning } from '../running/unplanned-run.js';
import { ALLOW_LINT_OPTION, checkLintGate } from '../plans/plan-lint.js';
import { droppedChangeLines, droppedChanges } from '../plans/dropped-changes.js';

export const approveCommand = defineCommand<{ run: string; 'allow-lint'?: string[] }>({
  examples: [
    ['$0 approve r-7f3a', 'approve the current plan version; prints its hash'],
    ['$0 approve r-7f3a --allow-lint unwritten-importer', 'approve although lint raised that code to an error'],
  ],
  builder: (yargs) => yargs.positional('run', { type: 'string', demandOption: true, describe: 'run id' }).option('allow-lint', ALLOW_LINT_OPTION),
  async run(context, args) {
    const { db } = await context.store();
    const run = await getRun(db, args.run);
    await refuseWhilePlanning(context, run);
    const allowedLint = await checkLintGate(context, run.id, args['allow-lint']);
    const stored = await approvePlan(db, run.id, { allowedLint });
    // Nodes that ran and that this version dropped: their changes stay in the workspace.
    const dropped = await droppedChanges(db, run, stored.plan);
    if (context.json) {
      const droppedJson = dropped.map(({ nodeId, files }) => ({ node: nodeId, files, revert: `dagent revert ${run.id} --node ${nodeId}` }));
      writeLine(context.io.stdout, JSON.stringify({ runId: run.id, status: stored.status, planVersion: stored.version, hash: stored.hash, ...(allowedLint.length === 0 ? {} : { allowedLint }), ...(dropped.length === 0 ? {} : { droppedChanges: droppedJson }) }));
    } else {
      const allowed = allowedLint.length === 0 ? '' : ` · lint errors allowed: ${allowedLint.join(', ')}`;
      const notes = droppedChangeLines(run.id, dropped).map((line) => `${line}\n`).join('');
      writeLine(context.io.stdout, `approved plan v${stored.version} of run ${run.id} · hash ${stored.hash}${allowed}\n${notes}${nextAfterApproval((await getRun(db, run.id)).status, run.id, await ranBefore(context, run.id))}`);
    }
    return 0;
  },
});

export const rejectCommand = defineCommand<{ run: string; reason?: string }>({
  examples: [
    ['$0 reject r-7f3a --reason \'edit the tests first\'', 'reject the plan; `dagent edit` makes a new version'],
  ],
  builder: (yargs) => yargs.positional('run', { type: 'string', demandOption: true, describe: 'run id' }).option('reason', { type: 'string', describe: 'why, for the log' }),
  async run(context, args) {
    const { db } = await context.store();
    const run = await getRun(db, args.run);
    const closed = await rejectWhilePlanning(context, run);
    if (closed !== undefined) {
      writeLine(context.io.stdout, context.json ? JSON.stringify({ runId: run.id, status: 'cancelled', planVersion: null }) : closed);
      return 0;
    }
    const stored = await rejectPlan(db, run.id, args.reason);
    if (context.json) writeLine(context.io.stdout, JSON.stringify({ runId: run.id, status: stored.status, planVersion: stored.version }));
    else writeLine(context.io.stdout, `rejected plan v${stored.version} of run ${run.id}${args.reason ? `: ${args.reason}` : ''}\na new version: dagent edit ${run.id} (or dagent import ${run.id} FILE), then dagent approve ${run.id}`);
    return 0;
  },
});

/**
 * What goes on from an approved plan: a run not started runs it; one that stopped — also one
 * whose new version was imported or edited after it stopped, which the pause line sent to
 * `resume` — resumes; one that succeeded with it reruns nodes.
 */
function nextAfterApproval(status: RunStatus, runId: string, ran: boolean): string {
  if (status === 'succeeded') return `run ${runId} already succeeded with it: \`dagent rerun ${runId} --from NODE\` runs a node and those after it again`;
  if (status === 'failed' || status === 'cancelled' || status === 'paused' || ran) return `next: dagent resume ${runId}`;
  return `next: dagent run ${runId}`;
}

/** Whether a process ever started the run (`run/started`). */
async function ranBefore(context: CliContext, runId: string): Promise<boolean> {
  const { db } = await context.store();
  return (await readEvents(db, runId, { nodeId: null, types: ['run/started'] })).length > 0;
}

