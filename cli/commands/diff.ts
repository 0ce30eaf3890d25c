import {
  DagentError,
  EventLog,
  NothingToDiffError,
  diffRun,
  getRun,
  renderFileDiff,
  revertRun,
  type FileDiff,
  type RevertAction,
  type RevertOutcome,
  type RunDiff,
  type RunRecord,
} from '../../engine/index.js';
import type { CliContext } from '../cli-context.js';
import { useColor, writeLine } from '../cli-io.js';
import { defineCommand } from '../command.js';
import { renderTable } from '../format/table.js';

/** `dagent revert` on a run whose nodes may still be writing its files. */
export class RunStillRunningError extends DagentError {
  constructor(readonly runId: string) {
    super(`run ${runId} is running: its nodes may still write these files; wait for it or \`dagent cancel ${runId}\` first (--force reverts anyway)`);
  }
}

export const diffCommand = defineCommand<{ run: string; node?: string; stat?: boolean }>({
  command: 'diff <run>',
  describe: 'the files a run (or one node) changed, as a unified diff',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' })
      .option('node', { type: 'string', describe: "only this node's change" })
      .option('stat', { type: 'boolean', describe: 'a summary: lines added and removed per file, and totals' }),
  async run(context, args) {
    const { db } = await context.store();
    const run = await getRun(db, args.run);
    const diff = await runDiffOrEmpty(() => diffRun(db, run.id, workspaceOf(context, args, run), args.node === undefined ? {} : { nodeId: args.node }), run.id, args.node);
    const out = context.io.stdout;
    if (context.json) {
      writeLine(out, JSON.stringify(args.stat === true ? diffStatJson(diff) : diffJson(diff)));
    } else if (diff.files.length === 0) {
      writeLine(out, diff.nodeId === null ? `run ${diff.runId} changed no files` : `node ${diff.nodeId} of run ${diff.runId} changed no files`);
    } else if (args.stat === true) {
      writeLine(out, renderDiffStat(diff, { color: useColor(context.io) }));
    } else {
      out.write(renderColoredDiff(diff, { color: useColor(context.io) }));
    }
    return 0;
  },
});

export const revertCommand = defineCommand<{ run: string; node?: string; force?: boolean; dryRun?: boolean }>({
  command: 'revert <run>',
  describe: 'put the files a run (or one node) changed back as they were before it',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' })
      .option('node', { type: 'string', describe: "only undo this node's change, keeping later nodes' edits" })
      .option('force', { type: 'boolean', describe: 'write the content before over conflicting later edits, and revert even a running run' })
      .option('dry-run', { type: 'boolean', describe: 'report what would be reverted without writing anything' }),
  async run(context, args) {
    const { db } = await context.store();
    const run = await getRun(db, args.run);
    const force = args.force === true;
    const dryRun = args.dryRun === true;
    if (run.status === 'running' && !force && !dryRun) throw new RunStillRunningError(run.id);
    const outcome = await revertRun(db, run.id, workspaceOf(context, args, run), {
      ...(args.node === undefined ? {} : { nodeId: args.node }),
      force,
      dryRun,
      log: new EventLog(db, run.id),
    });
    if (context.json) writeLine(context.io.stdout, JSON.stringify({ ...outcome, dryRun }));
    else writeLine(context.io.stdout, renderRevertText(outcome, { dryRun, force }));
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

/** `diff --json`: the RunDiff with its field names spelled out, so the document stays stable. */
export function diffJson(diff: RunDiff): unknown {
  return {
    runId: diff.runId,
    nodeId: diff.nodeId,
    files: diff.files.map((file) => ({
      path: file.path,
      change: file.change,
      content: file.content,
      nodeIds: file.nodeIds,
      hunks: file.hunks.map((hunk) => ({ oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, lines: hunk.lines })),
    })),
  };
}

export interface FileStat {
  readonly path: string;
  readonly change: FileDiff['change'];
  readonly content: FileDiff['content'];
  readonly added: number;
  readonly removed: number;
  readonly nodeIds: readonly string[];
}

/** Lines added and removed in a file's hunks (0 and 0 for binary or unrecorded content). */
export function fileStat(file: FileDiff): FileStat {
  let added = 0;
  let removed = 0;
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added += 1;
      else if (line.startsWith('-')) removed += 1;
    }
  }
  return { path: file.path, change: file.change, content: file.content, added, removed, nodeIds: file.nodeIds };
}

/** `diff --stat --json`: per file and in total, without the hunks. */
export function diffStatJson(diff: RunDiff): unknown {
  const files = diff.files.map(fileStat);
  return {
    runId: diff.runId,
    nodeId: diff.nodeId,
    files,
    totals: { files: files.length, added: sum(files.map((file) => file.added)), removed: sum(files.map((file) => file.removed)) },
  };
}

const GREEN = '\u001b[32m';
const RED = '\u001b[31m';
const CYAN = '\u001b[36m';
const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';

function paint(text: string, code: string, color: boolean): string {
  return color && text !== '' ? `${code}${text}${RESET}` : text;
}

/** The unified diff, with added lines green, removed lines red, hunk headers cyan and file headers bold when `color`. */
export function renderColoredDiff(diff: RunDiff, options: { color: boolean }): string {
  return diff.files
    .map((file) => {
      const text = renderFileDiff(file);
      if (!options.color) return text;
      let inHunk = false;
      return text
        .split('\n')
        .map((line) => {
          if (line.startsWith('@@')) {
            inHunk = true;
            return paint(line, CYAN, true);
          }
          if (!inHunk) return paint(line, BOLD, true);
          if (line.startsWith('+')) return paint(line, GREEN, true);
          if (line.startsWith('-')) return paint(line, RED, true);
          return line;
        })
        .join('\n');
    })
    .join('');
}

/**
 * `diff --stat`, git-like: one line per file (path, lines added and removed, and for a whole
 * run the nodes that changed it), then the totals.
 */
export function renderDiffStat(diff: RunDiff, options: { color: boolean }): string {
  const stats = diff.files.map(fileStat);
  const rows = stats.map((stat) => {
    const counts =
      stat.content === 'binary'
        ? 'binary'
        : stat.content === 'unrecorded'
          ? 'not recorded'
          : `${paint(`+${stat.added}`, GREEN, options.color)} ${paint(`-${stat.removed}`, RED, options.color)}`;
    const notes = [
      ...(diff.nodeId === null ? [stat.nodeIds.join(', ')] : []),
      ...(stat.change === 'added' ? ['(new file)'] : stat.change === 'deleted' ? ['(deleted)'] : []),
    ].join(' ');
    return { path: stat.path, counts, plainCounts: stripColor(counts), notes };
  });
  const pathWidth = Math.max(...rows.map((row) => [...row.path].length));
  const countsWidth = Math.max(...rows.map((row) => row.plainCounts.length));
  const lines = rows.map((row) => {
    const path = row.path + ' '.repeat(pathWidth - [...row.path].length);
    const counts = row.counts + ' '.repeat(countsWidth - row.plainCounts.length);
    return ` ${path} | ${counts}${row.notes === '' ? '' : `  ${row.notes}`}`.trimEnd();
  });
  const added = sum(stats.map((stat) => stat.added));
  const removed = sum(stats.map((stat) => stat.removed));
  lines.push(` ${plural(stats.length, 'file')} changed, ${plural(added, 'insertion')}(+), ${plural(removed, 'deletion')}(-)`);
  return lines.join('\n');
}

const DONE_VERBS: Readonly<Record<RevertAction, string>> = { restored: 'restored', deleted: 'deleted', patched: 'patched' };
const DRY_RUN_VERBS: Readonly<Record<RevertAction, string>> = { restored: 'would restore', deleted: 'would delete', patched: 'would patch' };

/** What `revert` did (or, on a dry run, would do): each file, each conflict with its reason, and what to do about conflicts. */
export function renderRevertText(outcome: RevertOutcome, options: { dryRun: boolean; force: boolean }): string {
  const scope = outcome.nodeId === null ? `run ${outcome.runId}` : `node ${outcome.nodeId} of run ${outcome.runId}`;
  const total = outcome.restored.length + outcome.conflicted.length + outcome.unchanged.length;
  if (total === 0) return `${scope} changed no files: nothing to revert`;
  const verbs = options.dryRun ? DRY_RUN_VERBS : DONE_VERBS;
  const rows: string[][] = [];
  for (const file of outcome.restored) {
    const detail =
      file.action === 'deleted'
        ? `created by ${file.nodeId}`
        : file.action === 'patched'
          ? `${file.nodeId}'s change reversed, later edits kept`
          : `as before ${file.nodeId}`;
    rows.push([verbs[file.action], file.path, detail]);
  }
  for (const conflict of outcome.conflicted) rows.push(['conflict', conflict.path, conflict.reason]);
  const lines: string[] = [];
  if (options.dryRun) lines.push(`dry run: nothing written`);
  if (rows.length > 0) lines.push(renderTable(rows));
  const summary: string[] = [];
  if (outcome.restored.length > 0) summary.push(`${plural(outcome.restored.length, 'file')} ${options.dryRun ? 'would be reverted' : 'reverted'}`);
  if (outcome.unchanged.length > 0) summary.push(`${plural(outcome.unchanged.length, 'file')} already as before`);
  if (outcome.conflicted.length > 0) summary.push(`${plural(outcome.conflicted.length, 'conflict')} ${options.dryRun ? 'would be left' : 'left'} untouched`);
  lines.push(`${scope}: ${summary.join(', ')}`);
  if (outcome.conflicted.length > 0) {
    const nodeFlag = outcome.nodeId === null ? '' : ` --node ${outcome.nodeId}`;
    const diffHint = `\`dagent diff ${outcome.runId}${nodeFlag}\` shows the change`;
    lines.push(
      options.force
        ? `${diffHint}; these files cannot be reverted even with --force`
        : `${diffHint}; \`dagent revert ${outcome.runId}${nodeFlag} --force\` writes the content before over the later edits`,
    );
  }
  return lines.join('\n');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function stripColor(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
