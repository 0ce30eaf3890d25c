import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, currentPlan, getRun, isEmptyPlanDiff, needsLivingProcess, parsePlanDocument, planVersion, renderPlanDiff, runOwner, savePlan, visibleJson, type Plan, type RunRecord, type Store } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { integerAtLeast } from '../context/cli-args.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { planDocumentText, readPlanFile } from '../plans/plan-document.js';
import { planRulesFor } from '../plans/plan-rules.js';
import { lintForReview } from '../plans/plan-lint.js';
import { analyzeForReview, printPlan } from '../plans/plan-review.js';
import { writeUserFile } from '../context/user-files.js';
import { droppedChangeLines, droppedChanges } from '../plans/dropped-changes.js';

export const exportCommand = defineCommand<{ run: string; file?: string; 'plan-version'?: number }>({
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true })
      .positional('file', { type: 'string', describe: 'where to write (default: stdout)' })
      .option('plan-version', { requiresArg: true, coerce: integerAtLeast('--plan-version', 1), describe: 'an earlier plan version (default: the current one)' })
      .example('$0 export r-7f3a plan.json', 'the current plan, to edit and `dagent import`')
      .example('$0 export r-7f3a --plan-version 1', 'the plan as first made, on stdout'),
  async run(context, args) {
    const { db } = await context.readStore();
    const runId = (await getRun(db, args.run)).id;
    const version = args['plan-version'];
    const stored = version === undefined ? await currentPlan(db, runId) : await planVersion(db, runId, version);
    // The same JSON value with its C1 controls and direction overrides as `\uXXXX` escapes: a plan's
    // text (from a model or a repository) cannot steer the terminal it is printed on or `cat` later.
    const text = visibleJson(planDocumentText(stored.plan));
    if (args.file === undefined) context.io.stdout.write(text);
    else {
      writeUserFile(context.io.cwd, args.file, text, `plan v${stored.version}`);
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
    const plan = readPlanFile(context.io.cwd, args.file, await planRulesFor(context));
    return storeEditedPlan(context, args.run, plan, `imported from ${args.file}`, resolve(context.io.cwd, args.file));
  },
});

export const editCommand = defineCommand<{ run: string; discard?: boolean }>({
  examples: [
    ['EDITOR=nano $0 edit r-7f3a', 'edit the plan; the result is validated and stored as a new version'],
    ['$0 edit r-7f3a --discard', 'throw away an unfinished edit (one that did not validate) instead of reopening it'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true })
      .option('discard', { type: 'boolean', describe: 'delete the unfinished edit kept from an earlier `edit` (the next `edit` starts from the current plan)' }),
  async run(context, args) {
    const { db } = await context.store();
    const run = await getRun(db, args.run);
    const stored = await currentPlan(db, run.id);
    const file = draftFile(context, stored.runId, stored.version);
    const stale = staleDrafts(context, stored.runId, stored.version);
    if (args.discard === true) return discardDraft(context, file, stale);
    await assertPlanMayChange(db, run);
    const editor = context.io.env.VISUAL || context.io.env.EDITOR || (context.io.stdin.isTTY === true && context.io.stdout.isTTY === true ? 'vi' : undefined);
    if (editor === undefined) {
      throw new ConfigError(`no editor: set $VISUAL or $EDITOR (without a terminal dagent does not open vi), or \`dagent export ${stored.runId} plan.json\`, edit it, and \`dagent import ${stored.runId} plan.json\``);
    }
    const discard = `\`dagent edit ${stored.runId} --discard\` throws it away`;
    for (const line of staleDraftLines(stale, stored.runId, stored.version)) writeLine(context.io.stderr, line);
    if (existsSync(file)) writeLine(context.io.stderr, `dagent: reopening your unfinished edit ${file} (${discard} and starts again from plan v${stored.version})`);
    else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, planDocumentText(stored.plan));
    }
    // The editor setting may carry arguments ("code --wait"); the file goes in as "$1", never spliced into the command.
    const result = spawnSync('sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit', env: context.io.env });
    if (result.status !== 0) throw new ConfigError(`the editor (${editor}) exited with ${result.status ?? result.signal}; your edits are kept in ${file} (${discard})`);
    let plan: Plan;
    try {
      plan = parsePlanDocument(readFileSync(file, 'utf8'), { source: file, rules: await planRulesFor(context) });
    } catch (error) {
      throw new ConfigError(`${(error as Error).message}\nyour edits are kept in ${file}: \`dagent edit ${stored.runId}\` reopens them, or fix the file and \`dagent import ${stored.runId} ${file}\`; ${discard}`);
    }
    const code = await storeEditedPlan(context, stored.runId, plan, 'edited', file);
    rmSync(file, { force: true });
    return code;
  },
});

/**
 * Where `edit` keeps the document being edited until it validates: one per run and plan version,
 * so an edit that failed is reopened (not lost) by the next `edit` of the same version.
 */
function draftFile(context: CliContext, runId: string, version: number): string {
  return join(context.workspace, '.dagent', 'edits', `${runId}-v${version + 1}.json`);
}

/** A kept edit begun from an older plan version than the current one: `file`, begun from `version`. */
interface StaleDraft {
  readonly file: string;
  readonly version: number;
}

/**
 * The run's kept edits begun from a plan version older than `current` (a version was stored since,
 * by `import` or a replan): `edit` no longer reopens them, so it names them instead of losing them.
 */
function staleDrafts(context: CliContext, runId: string, current: number): StaleDraft[] {
  const folder = join(context.workspace, '.dagent', 'edits');
  if (!existsSync(folder)) return [];
  const prefix = `${runId}-v`;
  return readdirSync(folder).flatMap((name) => {
    const number = name.startsWith(prefix) && name.endsWith('.json') ? name.slice(prefix.length, -'.json'.length) : '';
    const version = /^\d+$/.test(number) ? Number(number) - 1 : Number.NaN;
    return Number.isInteger(version) && version >= 1 && version < current ? [{ file: join(folder, name), version }] : [];
  });
}

function staleDraftLines(stale: readonly StaleDraft[], runId: string, current: number): string[] {
  return stale.map(
    ({ file, version }) =>
      `dagent: your unfinished edit ${file} began from plan v${version}, and v${current} was stored since: \`dagent edit\` does not reopen it (it starts from v${current}); the file is kept: \`dagent import ${runId} ${file}\` takes it as it is, \`dagent edit ${runId} --discard\` deletes it`,
  );
}

function discardDraft(context: CliContext, file: string, stale: readonly StaleDraft[]): number {
  const files = [...stale.map((draft) => draft.file), ...(existsSync(file) ? [file] : [])];
  if (files.length === 0) {
    writeLine(context.io.stdout, 'no unfinished edit to discard');
    return 0;
  }
  for (const each of files) {
    rmSync(each, { force: true });
    writeLine(context.io.stdout, `discarded the unfinished edit ${each}`);
  }
  return 0;
}

/**
 * A run whose process is planning or running it goes on with the plan it approved: a new version
 * under it would be one the run cannot end with. Once its process is gone (killed), the plan may
 * change, and `resume` asks for its approval.
 */
async function assertPlanMayChange(db: Store['db'], run: RunRecord): Promise<void> {
  if (!needsLivingProcess(run.status)) return;
  const owner = await runOwner(db, run.id);
  if (owner !== undefined && !owner.alive) return;
  const doing = run.status === 'planning' ? 'being planned' : 'running';
  throw new ConfigError(`run ${run.id} is ${doing}${owner === undefined ? '' : ` (pid ${owner.pid})`}: its plan cannot change under it; change it once the run ends, or \`dagent cancel ${run.id}\` (the run stays resumable) and then change it`);
}

/** Stores a user's plan as a new version awaiting approval, then prints the diff and the plan. */
/** `fromDraft`: the file the plan was read from, when it is a kept edit (it is not named as left behind). */
async function storeEditedPlan(context: CliContext, runArg: string, plan: Plan, reason: string, fromDraft?: string): Promise<number> {
  const { db } = await context.store();
  const run = await getRun(db, runArg);
  await assertPlanMayChange(db, run);
  const previous = await currentPlan(db, run.id);
  if (previous.status !== 'rejected' && planDocumentText(plan) === planDocumentText(previous.plan)) {
    // The same document again: no new version (it would need approving again for nothing);
    // a rejected plan brought back as it was is a new version to review.
    if (context.json) writeLine(context.io.stdout, JSON.stringify({ runId: run.id, version: previous.version, unchanged: true }));
    else writeLine(context.io.stdout, `plan unchanged: it is the same as v${previous.version} (${previous.status.replace('_', ' ')}); no new version`);
    return 0;
  }
  const lint = await lintForReview(context, plan);
  const saved = await savePlan(db, run.id, { plan, reason, lint });
  const analysis = await analyzeForReview(context, plan, lint);
  // A node this version drops may have run already: its change stays unless reverted.
  const dropped = droppedChangeLines(run.id, await droppedChanges(db, run, plan));
  // An unfinished edit of an earlier version is not reopened from now on: say where it stays.
  for (const line of staleDraftLines(staleDrafts(context, run.id, saved.stored.version).filter((draft) => draft.file !== fromDraft), run.id, saved.stored.version)) writeLine(context.io.stderr, line);
  if (context.json) {
    printPlan(context, saved.stored, analysis, 'json', 'plan');
    for (const line of dropped) writeLine(context.io.stderr, line);
    return 0;
  }
  const diff = saved.diff;
  writeLine(context.io.stdout, `plan v${previous.version} → v${saved.stored.version} (${reason})`);
  writeLine(context.io.stdout, diff === undefined || isEmptyPlanDiff(diff) ? 'no changes to nodes or edges' : renderPlanDiff(diff));
  for (const line of dropped) writeLine(context.io.stdout, line);
  writeLine(context.io.stdout);
  printPlan(context, saved.stored, analysis, 'text');
  writeLine(context.io.stdout, `next: dagent approve ${run.id}`);
  return 0;
}
