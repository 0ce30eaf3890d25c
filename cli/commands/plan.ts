import { ConfigError, createRun, savePlan, type Plan, type LintFinding } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import type { CliContext } from '../context/cli-context.js';
import { defineCommand } from '../context/command.js';
import { readPlanFile } from '../plans/plan-document.js';
import { planRulesFor } from '../plans/plan-rules.js';
import { ALLOW_LINT_OPTION, lintForReview, versionLint } from '../plans/plan-lint.js';
import { analyzeForReview, printPlan } from '../plans/plan-review.js';
import { recordedModels } from '../plans/recorded-models.js';
import { noModelConfigured } from '../runtime/models.js';
import { nodeModelChoice } from '../runtime/model-routing.js';
import type { RunFlags } from '../running/run-plan.js';
import { APPROVE_FROM_DASHBOARD_DESCRIPTION, DASHBOARD_DESCRIPTION, MAX_COST_OPTION, MAX_TOKENS_OPTION, ROUTING_DESCRIPTION } from './run-options.js';

interface PlanArgs {
  task?: string[];
  from?: string;
  yes?: boolean;
  dashboard?: boolean;
  'approve-from-dashboard'?: boolean;
  'allow-lint'?: string[];
  routing?: boolean;
  'max-cost'?: number;
  'max-tokens'?: number;
}

export const planCommand = defineCommand<PlanArgs>({
  examples: [
    ['$0 plan \'rename Invoice.total() to grandTotal()\' -m deepseek:deepseek-chat', 'plan with a model; prints the run id and the plan'],
    ['$0 plan --from plan.json', 'a plan you wrote (JSON or YAML)'],
    ['$0 plan \'fix the flaky test in @tests/a.test.ts\' --yes', 'plan, approve and run at once'],
  ],
  builder: (yargs) =>
    yargs
      .positional('task', { type: 'string', array: true, describe: 'what to do; name files as @path' })
      .option('from', { type: 'string', requiresArg: true, describe: 'a plan document (JSON or YAML) instead of planning with a model' })
      .option('yes', { alias: 'y', type: 'boolean', describe: 'approve the plan and run it at once (lint errors stop it)' })
      .option('allow-lint', ALLOW_LINT_OPTION)
      // With --yes the plan runs here, as `run` would: the same display and approval options.
      .option('dashboard', { type: 'boolean', describe: `with --yes: ${DASHBOARD_DESCRIPTION}` })
      .option('approve-from-dashboard', { type: 'boolean', describe: `with --yes: ${APPROVE_FROM_DASHBOARD_DESCRIPTION}` })
      .option('routing', { type: 'boolean', describe: `${ROUTING_DESCRIPTION} (the printed models and estimate too)` })
      .option('max-cost', { ...MAX_COST_OPTION, describe: `${MAX_COST_OPTION.describe}; it holds from the planner's first call` })
      .option('max-tokens', { ...MAX_TOKENS_OPTION, describe: `${MAX_TOKENS_OPTION.describe}; it holds from the planner's first call` }),
  async run(context, args) {
    const task = (args.task ?? []).join(' ').trim();
    if (args.from === undefined && task === '') throw new ConfigError('name a task (`dagent plan "rename X to Y"`) or a plan document (`dagent plan --from plan.json`)');
    const { db } = await context.store();
    let runId: string;
    if (args.from !== undefined) {
      const plan: Plan = readPlanFile(context.io.cwd, args.from, await planRulesFor(context));
      // --yes runs it at once: a node with no model to run on is refused before a run is stored.
      if (args.yes === true) assertModelsFor(context, plan);
      // The model named now (`-m`, config) is checked and recorded: `dagent run` uses it unless told otherwise.
      const run = await createRun(db, { task: task || plan.goal, workspace: context.workspace, mode: 'plan', config: recordedModels(context) });
      await savePlan(db, run.id, { plan, reason: `imported from ${args.from}`, lint: await lintForReview(context, plan) });
      runId = run.id;
    } else {
      runId = await (await import('../plans/planning.js')).planWithModel(context, task, budgetFlagsOf(args));
    }
    // The run machinery (and the dashboard) loads only when the plan runs.
    return args.yes ? (await import('../running/run-plan.js')).approveAndRun(context, runId, runFlagsOf(args)) : showNewPlan(context, runId, args.routing !== false);
  },
});

function runFlagsOf(args: PlanArgs): RunFlags {
  return {
    ...(args['allow-lint'] === undefined ? {} : { allowLint: args['allow-lint'] }),
    ...(args.dashboard === undefined ? {} : { dashboard: args.dashboard }),
    ...(args['approve-from-dashboard'] === undefined ? {} : { approveFromDashboard: args['approve-from-dashboard'] }),
    ...(args.routing === undefined ? {} : { routing: args.routing }),
    ...(args['max-cost'] === undefined && args['max-tokens'] === undefined ? {} : { budget: budgetFlagsOf(args) }),
  };
}

function budgetFlagsOf(args: PlanArgs): { maxCostUsd?: number; maxTokens?: number } {
  return { ...(args['max-cost'] === undefined ? {} : { maxCostUsd: args['max-cost'] }), ...(args['max-tokens'] === undefined ? {} : { maxTokens: args['max-tokens'] }) };
}

async function showNewPlan(context: CliContext, runId: string, routing: boolean): Promise<number> {
  const { db } = await context.store();
  const { currentPlan } = await import('../../engine/index.js');
  const stored = await currentPlan(db, runId);
  const lint = await versionLint(context, runId, stored.version, stored.plan);
  const analysis = await analyzeForReview(context, stored.plan, lint, { routing });
  printPlan(context, stored, analysis, 'text', 'plan');
  if (!context.json) writeLine(context.io.stdout, nextStep(runId, lint));
  return 0;
}

/** What to do after reading a new plan: approve and run it, or, when lint errors would stop `approve`, fix or allow them. */
function nextStep(runId: string, lint: readonly LintFinding[]): string {
  const codes = [...new Set(lint.filter((finding) => finding.level === 'error').map((finding) => finding.code))];
  if (codes.length === 0) return `next: dagent approve ${runId} && dagent run ${runId}   (or dagent edit ${runId})`;
  const allow = codes.map((code) => `--allow-lint ${code}`).join(' ');
  return `next: the lint ${codes.length === 1 ? 'error above stops' : 'errors above stop'} \`approve\`: fix the plan (dagent edit ${runId}), or approve it anyway with dagent approve ${runId} ${allow}`;
}

/** Every node that calls a model has one to run on: its own, its role's, or the run's (`--model`, config). */
function assertModelsFor(context: CliContext, plan: Plan): void {
  const modelOf = nodeModelChoice(context, undefined);
  const without = plan.nodes.filter((node) => node.kind !== 'command' && modelOf(node) === undefined);
  if (without.length > 0) throw new ConfigError(`${noModelConfigured(context)} (the plan's ${without.map((node) => node.id).slice(0, 3).join(', ')}${without.length > 3 ? ', …' : ''} call${without.length === 1 ? 's' : ''} one); nothing was stored`);
}

