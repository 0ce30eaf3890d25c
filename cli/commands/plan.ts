import { ConfigError, createRun, savePlan, type Plan } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import type { CliContext } from '../context/cli-context.js';
import { defineCommand } from '../context/command.js';
import { readPlanFile } from '../plans/plan-document.js';
import { ALLOW_LINT_OPTION, lintForReview, versionLint } from '../plans/plan-lint.js';
import { analyzeForReview, printPlan } from '../plans/plan-review.js';
import { planWithModel, recordedModels } from '../plans/planning.js';
import { approveAndRun } from '../running/run-plan.js';

export const planCommand = defineCommand<{ task?: string[]; from?: string; yes?: boolean; schedule?: string; concurrency?: number; 'allow-lint'?: string[] }>({
  examples: [
    ['$0 plan \'rename Invoice.total() to grandTotal()\' -m deepseek:deepseek-chat', 'plan with a model; prints the run id and the plan'],
    ['$0 plan --from plan.json', 'a plan you wrote (JSON or YAML)'],
    ['$0 plan \'fix the flaky test in @tests/a.test.ts\' --yes', 'plan, approve and run at once'],
  ],
  builder: (yargs) =>
    yargs
      .positional('task', { type: 'string', array: true, describe: 'what to do; name files as @path' })
      .option('from', { type: 'string', describe: 'a plan document (JSON or YAML) instead of planning with a model' })
      .option('yes', { alias: 'y', type: 'boolean', describe: 'approve the plan and run it at once (lint errors stop it)' })
      .option('allow-lint', ALLOW_LINT_OPTION),
  async run(context, args) {
    const task = (args.task ?? []).join(' ').trim();
    if (args.from === undefined && task === '') throw new ConfigError('name a task (`dagent plan "rename X to Y"`) or a plan document (`dagent plan --from plan.json`)');
    const { db } = await context.store();
    let runId: string;
    if (args.from !== undefined) {
      const plan: Plan = readPlanFile(context.io.cwd, args.from);
      // The model named now (`-m`, config) is checked and recorded: `dagent run` uses it unless told otherwise.
      const run = await createRun(db, { task: task || plan.goal, workspace: context.workspace, mode: 'plan', config: recordedModels(context) });
      await savePlan(db, run.id, { plan, reason: `imported from ${args.from}`, lint: await lintForReview(context, plan) });
      runId = run.id;
    } else {
      runId = await planWithModel(context, task);
    }
    return args.yes ? approveAndRun(context, runId, args['allow-lint'] === undefined ? {} : { allowLint: args['allow-lint'] }) : showNewPlan(context, runId);
  },
});

async function showNewPlan(context: CliContext, runId: string): Promise<number> {
  const { db } = await context.store();
  const { currentPlan } = await import('../../engine/index.js');
  const stored = await currentPlan(db, runId);
  const analysis = await analyzeForReview(context, stored.plan, await versionLint(context, runId, stored.version, stored.plan));
  printPlan(context, stored, analysis, 'text', 'plan');
  if (!context.json) writeLine(context.io.stdout, `next: dagent approve ${runId} && dagent run ${runId}   (or dagent edit ${runId})`);
  return 0;
}
