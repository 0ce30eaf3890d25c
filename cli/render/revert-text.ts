import { visibleText } from '../../engine/read-face.js';
import type { RevertAction, RevertOutcome } from '../../engine/index.js';
import { renderTable } from './table.js';
import { plural } from './counts.js';

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
  if (outcome.conflicted.length > 0) {
    const nodeFlag = outcome.nodeId === null ? '' : ` --node ${outcome.nodeId}`;
    const diffHint = `\`dagent diff ${outcome.runId}${nodeFlag}\` shows the change`;
    lines.push(
      options.force
        ? `${diffHint}; these files cannot be reverted even with --force`
        : `${diffHint}; \`dagent revert ${outcome.runId}${nodeFlag} --force\` writes the content before over the later edits`,
    );
  }
  return visibleText(lines.join('\n'), { multiline: true });
}
