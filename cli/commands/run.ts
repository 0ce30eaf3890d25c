import { DagentError, cancelRun, getRun } from '../../engine/index.js';
import { recoverKilledRunFiles } from '../running/recovered-files.js';
import { resumePausedNodes } from '../running/resume-nodes.js';
import { writeLine } from '../context/cli-io.js';
import { integerAtLeast } from '../context/cli-args.js';
import { defineCommand } from '../context/command.js';
import { APPROVE_FROM_DASHBOARD_DESCRIPTION, DASHBOARD_DESCRIPTION, MAX_COST_OPTION, MAX_TOKENS_OPTION, REUSE_DESCRIPTION, ROUTING_DESCRIPTION } from './run-options.js';
import { ALLOW_LINT_OPTION, checkLintGate } from '../plans/plan-lint.js';
import { runApprovedPlan } from '../running/run-plan.js';
import { planAgainHint, refuseWhilePlanning, shellWord } from '../running/unplanned-run.js';

interface RunArgs {
  run: string;
  approved?: string;
  schedule?: 'eager' | 'batch';
  concurrency?: number;
  'review-replans'?: boolean;
  wait?: boolean;
  workers?: boolean;
  clone?: boolean;
  dashboard?: boolean;
  'approve-from-dashboard'?: boolean;
  'allow-lint'?: string[];
  reuse?: boolean;
  routing?: boolean;
  node?: string;
  'max-cost'?: number;
  'max-tokens'?: number;
}


export const runCommand = defineCommand<RunArgs>({
  examples: [
    ['$0 run r-7f3a', 'run the approved plan (the dashboard on a terminal, lines otherwise)'],
    ['$0 run r-7f3a -j 2 --no-dashboard', 'at most two nodes at once, as progress lines'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('approved', { type: 'string', describe: 'refuse to start unless the plan still has this approved hash (CI)' })
      .option('schedule', { type: 'string', choices: ['eager', 'batch'] as const, describe: 'eager (default): a node starts when its last dependency ends; batch: stage by stage' })
      .option('concurrency', { alias: 'j', requiresArg: true, coerce: integerAtLeast('--concurrency', 1), describe: 'most nodes running at once (default 4)' })
      .option('review-replans', { type: 'boolean', describe: 'stop for approval after every replan' })
      .option('wait', { type: 'boolean', describe: 'if another process is running this run, wait for it to end instead of refusing' })
      .option('workers', { type: 'boolean', describe: 'schedule here and run the nodes on `dagent worker` processes (needs --db postgres://…)' })
      .option('clone', { type: 'boolean', describe: 'with --workers: each worker runs nodes in its own clone; node patches come back to this workspace' })
      .option('dashboard', { type: 'boolean', describe: DASHBOARD_DESCRIPTION })
      .option('approve-from-dashboard', { type: 'boolean', describe: APPROVE_FROM_DASHBOARD_DESCRIPTION })
      .option('reuse', { type: 'boolean', describe: REUSE_DESCRIPTION })
      .option('routing', { type: 'boolean', describe: ROUTING_DESCRIPTION })
      .option('max-cost', MAX_COST_OPTION)
      .option('max-tokens', MAX_TOKENS_OPTION)
      .option('allow-lint', ALLOW_LINT_OPTION),
  async run(context, args) {
    const { db } = await context.store();
    const run = await getRun(db, args.run);
    if (args.wait !== true && run.status === 'succeeded') throw new DagentError(`run ${run.id} already succeeded; \`dagent diff ${run.id}\` shows its change`);
    await refuseWhilePlanning(context, run);
    const allowedLint = run.status === 'approved' ? await checkLintGate(context, run, args['allow-lint']) : [];
    return runApprovedPlan(context, run.id, { ...flagsOf(args), ...(allowedLint.length === 0 ? {} : { allowedLint }) }, run);
  },
});

export const resumeCommand = defineCommand<RunArgs>({
  examples: [
    ['$0 resume r-7f3a', 'finish a failed, cancelled or interrupted run; succeeded nodes are kept'],
    ['$0 resume r-7f3a --max-cost 2', 'go on with a run that paused at its budget, under a higher one'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('schedule', { type: 'string', choices: ['eager', 'batch'] as const })
      .option('concurrency', { alias: 'j', requiresArg: true, coerce: integerAtLeast('--concurrency', 1) })
      .option('review-replans', { type: 'boolean' })
      .option('wait', { type: 'boolean', describe: 'if another process is running this run, wait for it to end instead of refusing' })
      .option('workers', { type: 'boolean', describe: 'schedule here and run the nodes on `dagent worker` processes (needs --db postgres://…)' })
      .option('clone', { type: 'boolean', describe: 'with --workers: each worker runs nodes in its own clone; node patches come back to this workspace' })
      .option('dashboard', { type: 'boolean', describe: DASHBOARD_DESCRIPTION })
      .option('approve-from-dashboard', { type: 'boolean', describe: APPROVE_FROM_DASHBOARD_DESCRIPTION })
      .option('reuse', { type: 'boolean', describe: REUSE_DESCRIPTION })
      .option('routing', { type: 'boolean', describe: ROUTING_DESCRIPTION })
      .option('node', { type: 'string', requiresArg: true, describe: 'let this paused node go on (`dagent pause`); without it, every paused node of a running run' })
      .option('max-cost', MAX_COST_OPTION)
      .option('max-tokens', MAX_TOKENS_OPTION),
  async run(context, args) {
    const { db } = await context.store();
    const run = await getRun(db, args.run);
    if (run.mode === 'react') throw new DagentError(`run ${run.id} ${run.status}: ${reactWayOn(run)}`);
    if (await resumePausedNodes(context, run, args.node)) return 0;
    if (args.wait !== true && run.status === 'succeeded') {
      if (context.json) writeLine(context.io.stdout, JSON.stringify({ runId: run.id, status: run.status, resumed: false }));
      else writeLine(context.io.stdout, `run ${run.id} already succeeded: nothing to resume`);
      return 0;
    }
    await refuseWhilePlanning(context, run);
    return runApprovedPlan(context, run.id, flagsOf(args), run);
  },
});

export const cancelCommand = defineCommand<{ run: string; wait?: number }>({
  examples: [
    ['$0 cancel r-7f3a', 'stop a running run; `dagent resume` finishes it later'],
  ],
  builder: (yargs) =>
    yargs.positional('run', { type: 'string', demandOption: true }).option('wait', { requiresArg: true, default: 30, coerce: integerAtLeast('--wait', 0), describe: 'seconds to wait for the run to stop' }),
  async run(context, args) {
    const { db } = await context.store();
    const waitSeconds = args.wait ?? 30;
    const outcome = await cancelRun(db, args.run, { by: `pid ${process.pid}`, waitMs: waitSeconds * 1000, signal: context.io.interrupt });
    const runId = outcome.runId;
    if (outcome.kind === 'still-running') throw new DagentError(`run ${runId} (pid ${outcome.pid}) did not stop within ${waitSeconds} s`, { exitCode: 1 });
    const run = await getRun(db, runId);
    await recoverKilledRunFiles(context, run, run.workspace);
    const next = await afterCancel(db, runId, outcome.from);
    const line =
      outcome.kind === 'stopped'
        ? `run ${runId} ${outcome.status}; ${next}`
        : `run ${runId} cancelled (its ${outcome.from === 'planning' ? 'planning ' : ''}process had already stopped); ${next}`;
    writeLine(context.io.stdout, line);
    return 0;
  },
});

/** What to do with a run once cancelled: resume it, or plan it again (no plan yet), or run a react run again (it has no plan to resume). */
async function afterCancel(db: Parameters<typeof getRun>[0], runId: string, from: string): Promise<string> {
  if (from === 'planning') return `it has no plan; plan the task again with: ${planAgainHint(await getRun(db, runId))}`;
  const run = await getRun(db, runId);
  if (run.mode === 'react') return reactWayOn(run);
  return `resume with: dagent resume ${runId}`;
}

/** A react run (one agent, no plan) is not resumed: what it changed is in its diff, and it runs again as it ran. */
function reactWayOn(run: { readonly id: string; readonly task: string }): string {
  return `a react run has no plan to resume; see what it changed: dagent diff ${run.id}, or run it again: dagent react ${shellWord(run.task)}`;
}

function flagsOf(args: RunArgs) {
  return {
    ...(args.approved === undefined ? {} : { approvedHash: args.approved }),
    ...(args.schedule === undefined ? {} : { schedule: args.schedule }),
    ...(args.concurrency === undefined ? {} : { concurrency: args.concurrency }),
    ...(args['review-replans'] === undefined ? {} : { reviewReplans: args['review-replans'] }),
    ...(args.wait === undefined ? {} : { wait: args.wait }),
    ...(args.workers === true ? { workers: args.clone === true ? ('clone' as const) : ('shared' as const) } : {}),
    ...(args.dashboard === undefined ? {} : { dashboard: args.dashboard }),
    ...(args['approve-from-dashboard'] === undefined ? {} : { approveFromDashboard: args['approve-from-dashboard'] }),
    ...(args.reuse === false ? { reuse: false } : {}),
    ...(args.routing === undefined ? {} : { routing: args.routing }),
    ...(args['max-cost'] === undefined && args['max-tokens'] === undefined
      ? {}
      : { budget: { ...(args['max-cost'] === undefined ? {} : { maxCostUsd: args['max-cost'] }), ...(args['max-tokens'] === undefined ? {} : { maxTokens: args['max-tokens'] }) } }),
  };
}
