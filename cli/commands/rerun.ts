import { getRun, isEmptyPlanDiff, prepareRerun, renderPlanDiff, visibleText, type PreparedRerun } from '../../engine/index.js';
import { integerAtLeast } from '../context/cli-args.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { runApprovedPlan } from '../running/run-plan.js';
import { APPROVE_FROM_DASHBOARD_DESCRIPTION, DASHBOARD_DESCRIPTION } from './run-options.js';

interface RerunArgs {
  run: string;
  from: string;
  instruction?: string;
  force?: boolean;
  schedule?: 'eager' | 'batch';
  concurrency?: number;
  dashboard?: boolean;
  'approve-from-dashboard'?: boolean;
}

export const rerunCommand = defineCommand<RerunArgs>({
  examples: [
    ['$0 rerun r-7f3a --from edit-digest', 'run edit-digest and every node after it again; the nodes before it keep their results'],
    ['$0 rerun r-7f3a --from edit-api --instruction "keep the old name as a deprecated alias"', 'the same, with a word for the node'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('from', { type: 'string', demandOption: true, requiresArg: true, describe: 'the node to run again (with every node that depends on it)' })
      .option('instruction', { type: 'string', requiresArg: true, describe: "added to the node's instructions for its new attempt (kept in the new plan version)" })
      .option('force', { type: 'boolean', describe: 'revert the nodes\' changes even over files edited since (as `revert --force`)' })
      .option('schedule', { type: 'string', choices: ['eager', 'batch'] as const })
      .option('concurrency', { alias: 'j', requiresArg: true, coerce: integerAtLeast('--concurrency', 1) })
      .option('dashboard', { type: 'boolean', describe: DASHBOARD_DESCRIPTION })
      .option('approve-from-dashboard', { type: 'boolean', describe: APPROVE_FROM_DASHBOARD_DESCRIPTION }),
  async run(context, args) {
    const { db } = await context.store();
    const run = await getRun(db, args.run);
    const prepare = async (): Promise<void> => {
      const prepared = await prepareRerun(db, run.id, {
        from: args.from,
        workspace: context.workspaceGiven ? context.workspace : run.workspace,
        ...(args.instruction === undefined ? {} : { instruction: args.instruction }),
        ...(args.force === true ? { force: true } : {}),
      });
      printPrepared(context, prepared);
    };
    return runApprovedPlan(context, run.id, {
      prepare,
      ...(args.schedule === undefined ? {} : { schedule: args.schedule }),
      ...(args.concurrency === undefined ? {} : { concurrency: args.concurrency }),
      ...(args.dashboard === undefined ? {} : { dashboard: args.dashboard }),
      ...(args['approve-from-dashboard'] === undefined ? {} : { approveFromDashboard: args['approve-from-dashboard'] }),
    });
  },
});

function printPrepared(context: CliContext, prepared: PreparedRerun): void {
  const { stdout } = context.io;
  if (context.json) {
    const { diff, ...rest } = prepared;
    writeLine(stdout, JSON.stringify({ rerun: { ...rest, ...(diff === undefined ? {} : { diff }) } }));
    return;
  }
  writeLine(stdout, `plan v${prepared.fromVersion} → v${prepared.version} (rerun from ${visibleText(prepared.from)})`);
  if (prepared.diff !== undefined && !isEmptyPlanDiff(prepared.diff)) writeLine(stdout, renderPlanDiff(prepared.diff));
  writeLine(stdout, `runs again: ${visibleText(prepared.nodes.join(', '))}; the other nodes keep their results`);
  if (prepared.reverted.length > 0) writeLine(stdout, `reverted: ${visibleText(prepared.reverted.map((file) => `${file.path} (${file.nodeId})`).join(', '))}`);
}
