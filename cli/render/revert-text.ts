import { quote } from 'shell-quote';
import { visibleText } from '../../engine/read-face.js';
import type { RevertAction, RevertConflict, RevertOutcome } from '../../engine/index.js';
import { renderTable } from './table.js';
import { plural } from './counts.js';

const DONE_VERBS: Readonly<Record<RevertAction, string>> = { restored: 'restored', deleted: 'deleted', patched: 'patched' };
const DRY_RUN_VERBS: Readonly<Record<RevertAction, string>> = { restored: 'would restore', deleted: 'would delete', patched: 'would patch' };

export interface RevertTextOptions {
  readonly dryRun: boolean;
  readonly force: boolean;
  /** The workspace, when the user is not in it: a `git` command it names runs there (`git -C DIR`). */
  readonly gitDir?: string;
}

/** What `revert` did (or, on a dry run, would do): each file, each conflict with its reason, and what to do about conflicts. */
export function renderRevertText(outcome: RevertOutcome, options: RevertTextOptions): string {
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
    // --force over a file edited since the change: those edits go with it, and the line says so.
    const over = file.overwrote === true ? `, over the edits made since (${options.dryRun ? 'they would be lost' : 'they are gone'})` : '';
    rows.push([verbs[file.action], file.path, `${detail}${over}`]);
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
  lines.push(...conflictHints(outcome, options));
  return visibleText(lines.join('\n'), { multiline: true });
}

/**
 * What to do about the conflicts: `--force` for those it writes over, and for those it cannot put
 * back (their content before is not held, or a link is on the path) that it cannot, with the git
 * command that brings back a committed copy where the workspace's repository has one.
 */
function conflictHints(outcome: RevertOutcome, options: RevertTextOptions): string[] {
  if (outcome.conflicted.length === 0) return [];
  const nodeFlag = outcome.nodeId === null ? '' : ` --node ${outcome.nodeId}`;
  const diffHint = `\`dagent diff ${outcome.runId}${nodeFlag}\` shows the change`;
  const forceable = outcome.conflicted.filter((conflict) => conflict.remedy === 'force');
  const stuck = outcome.conflicted.filter((conflict) => conflict.remedy !== 'force');
  const lines: string[] = [];
  if (forceable.length > 0) lines.push(`${diffHint}; \`dagent revert ${outcome.runId}${nodeFlag} --force\` writes the content before over the later edits`);
  if (stuck.length > 0) lines.push(`${forceable.length > 0 ? '' : `${diffHint}; `}${pathList(stuck)} cannot be reverted, even with --force`);
  const git = options.gitDir === undefined ? 'git' : `git -C ${shellWord(options.gitDir)}`;
  for (const conflict of stuck) {
    if (conflict.remedy === 'git') lines.push(`\`${git} checkout HEAD -- ${shellWord(conflict.path)}\` puts ${conflict.path} back as last committed (\`${git} diff HEAD -- ${shellWord(conflict.path)}\` shows what that undoes)`);
  }
  return lines;
}

function pathList(conflicts: readonly RevertConflict[]): string {
  return conflicts.length === 1 ? conflicts[0]!.path : `${conflicts.slice(0, -1).map((conflict) => conflict.path).join(', ')} and ${conflicts.at(-1)!.path}`;
}

/** A path as one shell word, for a command the user may paste. */
function shellWord(path: string): string {
  return quote([path]);
}
