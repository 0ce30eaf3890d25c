import { resolve } from 'node:path';
import {
  DagentError,
  deadRunOwner,
  runLog,
  NothingToDiffError,
  diffRun,
  getRun,
  revertRun,
  visibleJson,
  visibleText,
  type RunDiff,
  type RunRecord,
} from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { useColor, writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { recoverKilledRunFiles } from '../running/recovered-files.js';
import { renderColoredDiff, renderDiffStat, renderRevertText, diffJson, diffStatJson } from '../render/index.js';

export const diffCommand = defineCommand<{ run: string; node?: string; stat?: boolean }>({
  examples: [
    ['$0 diff r-7f3a | less', 'everything the run changed'],
    ['$0 diff r-7f3a --node edit-a --stat', 'the files one node changed'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' })
      .option('node', { type: 'string', requiresArg: true, describe: "only this node's change" })
      .option('stat', { type: 'boolean', describe: 'a summary: lines added and removed per file, and totals' }),
  async run(context, args) {
    const { db } = await context.readStore();
    const run = await getRun(db, args.run);
    await recoverKilledRunFiles(context, run, workspaceOf(context, args, run));
    const diff = await runDiffOrEmpty(() => diffRun(db, run.id, workspaceOf(context, args, run), args.node === undefined ? {} : { nodeId: args.node }), run.id, args.node);
    const out = context.io.stdout;
    if (context.json) {
      writeLine(out, visibleJson(JSON.stringify(args.stat === true ? diffStatJson(diff) : diffJson(diff))));
    } else if (diff.files.length === 0) {
      writeLine(out, diff.nodeId === null ? `run ${diff.runId} changed no files` : `node ${visibleText(diff.nodeId)} of run ${diff.runId} changed no files`);
    } else if (args.stat === true) {
      writeLine(out, renderDiffStat(diff, { color: useColor(context.io) }));
    } else {
      out.write(renderColoredDiff(diff, { color: useColor(context.io) }));
    }
    const undeclared = diff.files.filter((file) => file.undeclared === true).map((file) => file.path);
    if (!context.json && undeclared.length > 0) {
      writeLine(context.io.stderr, `warning: changed outside the declared writes of the node that changed them (a command's side effect): ${visibleText(undeclared.join(', '))}`);
    }
    return 0;
  },
});

export const revertCommand = defineCommand<{ run: string; node?: string; force?: boolean; dryRun?: boolean }>({
  examples: [
    ['$0 revert r-7f3a --dry-run', 'what would be put back, without writing'],
    ['$0 revert r-7f3a --node edit-a', 'undo one node\'s change'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' })
      .option('node', { type: 'string', requiresArg: true, describe: "only undo this node's change, keeping later nodes' edits" })
      .option('force', { type: 'boolean', describe: 'also overwrite files edited again since the run (a conflict otherwise leaves them untouched), and revert a run that is still running' })
      .option('dry-run', { type: 'boolean', describe: 'report what would be reverted without writing anything' }),
  async run(context, args) {
    const { db } = await context.readStore();
    const run = await getRun(db, args.run);
    await recoverKilledRunFiles(context, run, workspaceOf(context, args, run));
    const force = args.force === true;
    const dryRun = args.dryRun === true;
    // A react run is not resumed: once its process is gone only `cancel` ends it, and the refusal says so.
    if (!force && !dryRun && run.mode === 'react' && run.status === 'running' && (await deadRunOwner(db, run)) !== undefined) {
      throw new DagentError(`run ${run.id}'s process is gone (killed or crashed), but the run is still open: \`dagent cancel ${run.id}\` closes it, then \`dagent revert ${run.id}\` undoes its change (--force reverts it now)`);
    }
    const workspace = workspaceOf(context, args, run);
    const outcome = await revertRun(db, run.id, workspace, {
      ...(args.node === undefined ? {} : { nodeId: args.node }),
      force,
      dryRun,
      log: runLog(db, run.id),
    });
    if (context.json) writeLine(context.io.stdout, visibleJson(JSON.stringify({ ...outcome, dryRun })));
    // A git command the text names runs in the workspace: from anywhere else it says where (`git -C`).
    else writeLine(context.io.stdout, renderRevertText(outcome, { dryRun, force, ...(resolve(context.io.cwd) === resolve(workspace) ? {} : { gitDir: workspace }) }));
    return outcome.conflicted.length > 0 ? 1 : 0;
  },
});

/**
 * The run's files live in the workspace it ran in; `--workspace` names another (the repository
 * moved, or the database is shared between machines).
 */
function workspaceOf(context: CliContext, args: { workspace?: string }, run: RunRecord): string {
  return args.workspace === undefined ? run.workspace : context.workspace;
}

/** A run (or node) without any snapshots diffs as no files, not as an error. */
async function runDiffOrEmpty(diff: () => Promise<RunDiff>, runId: string, nodeId: string | undefined): Promise<RunDiff> {
  try {
    return await diff();
  } catch (error) {
    if (error instanceof NothingToDiffError) return { runId, nodeId: nodeId ?? null, files: [] };
    throw error;
  }
}
