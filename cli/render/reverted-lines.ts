import { isNodeReverted, visibleText, type RevertRecord, type RevertsView } from '../../engine/read-face.js';

/** Past this many files, a revert's line names the first ones and counts the rest. */
const FILES_NAMED_MAX = 6;

/**
 * What `status` and `show` say of the changes `dagent revert` undid: one line for the whole run's
 * revert (with the nodes that ran again since), one per node reverted on its own, each with when,
 * which files, and the files a conflict left with their later edits and the command that overwrites them.
 */
export function revertedLines(runId: string, reverts: RevertsView): string[] {
  const lines: string[] = [];
  const run = reverts.run;
  if (run !== null) {
    const since = run.ranSince.length === 0 ? '' : `; since then ${run.ranSince.map((id) => visibleText(id)).join(', ')} ran again (${run.ranSince.length === 1 ? 'its change is' : 'their changes are'} back)`;
    lines.push(`reverted: the run's changes, by \`dagent revert\` at ${when(run.at)}${filesPart(run, 'as before the run')}${conflictPart(run, `dagent revert ${runId} --force`)}${since}`);
  }
  for (const [nodeId, record] of Object.entries(reverts.nodes)) {
    const node = visibleText(nodeId);
    lines.push(`reverted: ${node}'s change, by \`dagent revert --node ${node}\` at ${when(record.at)}${filesPart(record, `as before ${node}`)}${conflictPart(record, `dagent revert ${runId} --node ${node} --force`)}`);
  }
  return lines;
}

/** `status --json`'s `reverted` of a node: its own revert, or the run's that undid it. */
export function nodeRevertedJson(reverts: RevertsView, nodeId: string): object | undefined {
  const own = reverts.nodes[nodeId];
  if (own !== undefined) return { scope: 'node', ...own };
  return reverts.run !== null && isNodeReverted(reverts, nodeId) ? { scope: 'run', at: reverts.run.at } : undefined;
}

function filesPart(record: RevertRecord, state: string): string {
  const back = [...record.reverted, ...record.unchanged].sort();
  return back.length === 0 ? '' : `: ${named(back)} ${state}`;
}

function conflictPart(record: RevertRecord, force: string): string {
  const forceable = record.conflicts.filter((path) => !record.unrestorable.includes(path));
  const parts = [
    ...(forceable.length === 0 ? [] : [`; ${named(forceable)} kept the edits made since in the lines the change made (a conflict; \`${force}\` overwrites them)`]),
    // Their content before is not held: nothing dagent has puts them back, so no command is offered for them.
    ...(record.unrestorable.length === 0 ? [] : [`; ${named(record.unrestorable)} left as ${record.unrestorable.length === 1 ? 'it is' : 'they are'} (\`dagent revert\` cannot put ${record.unrestorable.length === 1 ? 'it' : 'them'} back, even with --force)`]),
  ];
  if (parts.length === 0) return record.forced ? ' (--force: edits made since were overwritten)' : '';
  return parts.join('');
}

function named(paths: readonly string[]): string {
  const shown = paths.slice(0, FILES_NAMED_MAX).map((path) => visibleText(path)).join(', ');
  return paths.length > FILES_NAMED_MAX ? `${shown} and ${paths.length - FILES_NAMED_MAX} more` : shown;
}

/** `2026-12-07 17:08 UTC`: the log's time, to the minute. */
function when(at: string): string {
  return `${at.slice(0, 16).replace('T', ' ')} UTC`;
}
