import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, currentPlan, getRun, isEmptyPlanDiff, parsePlanDocument, planVersion, renderPlanDiff, savePlan, type Plan } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { integerAtLeast } from '../context/cli-args.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { planDocumentText, readPlanFile } from '../plans/plan-document.js';
import { lintForReview } from '../plans/plan-lint.js';
import { analyzeForReview, printPlan } from '../plans/plan-review.js';

export const exportCommand = defineCommand<{ run: string; file?: string; 'plan-version'?: number }>({
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true })
      .positional('file', { type: 'string', describe: 'where to write (default: stdout)' })
      .option('plan-version', { requiresArg: true, coerce: integerAtLeast('--plan-version', 1), describe: 'an earlier plan version (default: the current one)' })
      .example('$0 export 01J9 plan.json', 'the current plan, to edit and `dagent import`')
      .example('$0 export 01J9 --plan-version 1', 'the plan as first made, on stdout'),
  async run(context, args) {
    const { db } = await context.readStore();
    const runId = (await getRun(db, args.run)).id;
    const version = args['plan-version'];
    const stored = version === undefined ? await currentPlan(db, runId) : await planVersion(db, runId, version);
    const text = planDocumentText(stored.plan);
    if (args.file === undefined) context.io.stdout.write(text);
    else {
      writeFileSync(resolve(context.io.cwd, args.file), text);
      writeLine(context.io.stderr, `wrote plan v${stored.version} of run ${stored.runId} to ${args.file}`);
    }
    return 0;
  },
});

export const importCommand = defineCommand<{ run: string; file: string }>({
  examples: [
    ['$0 import r-7f3a plan.json', 'replace the plan with an edited export; prints the diff'],
  ],
  builder: (yargs) => yargs.positional('run', { type: 'string', demandOption: true }).positional('file', { type: 'string', demandOption: true, describe: 'plan document (JSON or YAML)' }),
  async run(context, args) {
    const plan = readPlanFile(context.io.cwd, args.file);
    return storeEditedPlan(context, args.run, plan, `imported from ${args.file}`);
  },
});

export const editCommand = defineCommand<{ run: string }>({
  examples: [
    ['EDITOR=nano $0 edit r-7f3a', 'edit the plan; the result is validated and stored as a new version'],
  ],
  builder: (yargs) => yargs.positional('run', { type: 'string', demandOption: true }),
  async run(context, args) {
    const { db } = await context.store();
    const stored = await currentPlan(db, (await getRun(db, args.run)).id);
    const editor = context.io.env.VISUAL || context.io.env.EDITOR || (context.io.stdin.isTTY === true && context.io.stdout.isTTY === true ? 'vi' : undefined);
    if (editor === undefined) {
      throw new ConfigError(`no editor: set $VISUAL or $EDITOR (without a terminal dagent does not open vi), or \`dagent export ${stored.runId} plan.json\`, edit it, and \`dagent import ${stored.runId} plan.json\``);
    }
    const folder = join(context.workspace, '.dagent', 'edits');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${stored.runId}-v${stored.version + 1}.json`);
    if (!existsSync(file)) writeFileSync(file, planDocumentText(stored.plan));
    // The editor setting may carry arguments ("code --wait"); the file goes in as "$1", never spliced into the command.
    const result = spawnSync('sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit', env: context.io.env });
    if (result.status !== 0) throw new ConfigError(`the editor (${editor}) exited with ${result.status ?? result.signal}; your edits are kept in ${file}`);
    let plan: Plan;
    try {
      plan = parsePlanDocument(readFileSync(file, 'utf8'), { source: file });
    } catch (error) {
      throw new ConfigError(`${(error as Error).message}\nyour edits are kept in ${file}: fix them and run \`dagent import ${stored.runId} ${file}\``);
    }
    return storeEditedPlan(context, stored.runId, plan, 'edited');
  },
});

/** Stores a user's plan as a new version awaiting approval, then prints the diff and the plan. */
async function storeEditedPlan(context: CliContext, runArg: string, plan: Plan, reason: string): Promise<number> {
  const { db } = await context.store();
  const run = await getRun(db, runArg);
  const previous = await currentPlan(db, run.id);
  const lint = await lintForReview(context, plan);
  const saved = await savePlan(db, run.id, { plan, reason, lint });
  const analysis = await analyzeForReview(context, plan, lint);
  if (context.json) {
    printPlan(context, saved.stored, analysis, 'json', 'plan');
    return 0;
  }
  const diff = saved.diff;
  writeLine(context.io.stdout, `plan v${previous.version} → v${saved.stored.version} (${reason})`);
  writeLine(context.io.stdout, diff === undefined || isEmptyPlanDiff(diff) ? 'no changes to nodes or edges' : renderPlanDiff(diff));
  writeLine(context.io.stdout);
  printPlan(context, saved.stored, analysis, 'text');
  writeLine(context.io.stdout, `next: dagent approve ${run.id}`);
  return 0;
}
