import { ConfigError, createRun, savePlan, teamLeadPlan } from '../../engine/index.js';
import { toolSet } from '../../tools/index.js';
import { defineCommand } from '../context/command.js';
import { lintForReview } from '../plans/plan-lint.js';
import { recordedModels } from '../plans/recorded-models.js';
import { chooseModel, modelIdFor } from '../runtime/models.js';
import { createTools } from '../runtime/compose-runtime.js';
import { approveAndRun } from '../running/run-plan.js';
import { APPROVE_FROM_DASHBOARD_DESCRIPTION, DASHBOARD_DESCRIPTION } from './run-options.js';

interface TeamArgs {
  task?: string[];
  dashboard?: boolean;
  'approve-from-dashboard'?: boolean;
}

/** The lead reads and runs commands (the tests, at the end); every change is a delegated node's. */
const LEAD_EXTRA_TOOLS = ['run_command'];

export const teamCommand = defineCommand<TeamArgs>({
  examples: [['$0 team \'split the date helpers out of src/util.ts and test them\' -m deepseek:deepseek-chat', 'a lead agent delegates the work to nodes it adds to the plan as it goes']],
  builder: (yargs) =>
    yargs
      .positional('task', { type: 'string', array: true, describe: 'what the team does; name files as @path' })
      .option('dashboard', { type: 'boolean', describe: DASHBOARD_DESCRIPTION })
      .option('approve-from-dashboard', { type: 'boolean', describe: APPROVE_FROM_DASHBOARD_DESCRIPTION }),
  async run(context, args) {
    const task = (args.task ?? []).join(' ').trim();
    if (task === '') throw new ConfigError('name a task: `dagent team "split the date helpers out of src/util.ts"`');
    // The lead runs on the run's model: without one, refuse before a run is stored.
    chooseModel(context, modelIdFor(context, 'node'));
    const { db } = await context.store();
    const tools = await createTools(context, { mcp: false });
    const leadTools = [...toolSet(tools, 'read-only').filter((name) => name !== 'report_missing_work'), ...LEAD_EXTRA_TOOLS.filter((name) => tools.names().includes(name))];
    const plan = teamLeadPlan(task, leadTools);
    const run = await createRun(db, { task, workspace: context.workspace, mode: 'team', config: recordedModels(context) });
    await savePlan(db, run.id, { plan, reason: 'team lead', lint: await lintForReview(context, plan) });
    return approveAndRun(context, run.id, {
      ...(args.dashboard === undefined ? {} : { dashboard: args.dashboard }),
      ...(args['approve-from-dashboard'] === undefined ? {} : { approveFromDashboard: args['approve-from-dashboard'] }),
    });
  },
});
