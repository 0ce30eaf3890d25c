import { REVERTS_FOLD_TYPES, chooseIsolation, currentPlan, describeIsolation, foldReverts, getRun, planVersion, readEvents } from '../../engine/read-face.js';
import { revertedLines } from '../render/index.js';
import { writeLine } from '../context/cli-io.js';
import { integerAtLeast } from '../context/cli-args.js';
import { defineCommand } from '../context/command.js';
import { PLAN_FORMATS, analyzeForReview, printPlan, type PlanFormat } from '../plans/plan-review.js';
import { versionLint } from '../plans/plan-lint.js';

export const showCommand = defineCommand<{ run: string; format: PlanFormat; 'plan-version'?: number; routing?: boolean }>({
  examples: [
    ['$0 show r-7f3a', 'stages, files, critical path, estimate and lint'],
    ['$0 show r-7f3a --format mermaid', 'the DAG as a Mermaid diagram'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('format', { type: 'string', choices: PLAN_FORMATS, default: 'text' as PlanFormat, describe: 'output format' })
      .option('plan-version', { requiresArg: true, coerce: integerAtLeast('--plan-version', 1), describe: 'an earlier plan version (default: the current one)' })
      .option('routing', { type: 'boolean', describe: "the model each node will run on and the estimate, with small-model routing (config `smallModel`, the default); --no-routing as `run --no-routing` would run it" }),
  async run(context, args) {
    const { db } = await context.readStore();
    const run = await getRun(db, args.run);
    const version = args['plan-version'];
    const stored = version === undefined ? await currentPlan(db, run.id) : await planVersion(db, run.id, version);
    const analysis = await analyzeForReview(context, stored.plan, await versionLint(context, stored.runId, stored.version, stored.plan), { routing: args.routing !== false });
    // Nodes this version kept from an earlier one: nothing they depend on changed.
    const reused = (await readEvents(db, run.id, { types: ['node/reused'] })).flatMap((event) => (event.type === 'node/reused' && event.payload.planVersion === stored.version && event.nodeId !== null ? [event.nodeId] : []));
    printPlan(context, stored, analysis, args.format, 'show', [...new Set(reused)]);
    if (args.format === 'text' && !context.json) {
      writeLine(context.io.stdout, describeIsolation(await chooseIsolation(context.config.isolation, run.workspace), run.id));
      // The plan's changes that `dagent revert` undid are no longer in the workspace.
      for (const line of revertedLines(run.id, foldReverts(await readEvents(db, run.id, { types: REVERTS_FOLD_TYPES })))) writeLine(context.io.stdout, line);
    }
    return 0;
  },
});
