/**
 * The end of a `writes/exceeded` line (progress, `status`) when other nodes' commands ran at the
 * same time in a workspace without git: the changes are recorded for this node, but they may be
 * theirs.
 */
export function overlappedNote(overlapped: readonly string[] | undefined): string {
  if (overlapped === undefined || overlapped.length === 0) return '';
  const whose = overlapped.length === 1 ? `${overlapped[0]}'s` : 'theirs';
  return ` · ${overlapped.join(', ')} ran commands at the same time, and without git dagent cannot tell which node's commands changed them: they may be ${whose}`;
}
