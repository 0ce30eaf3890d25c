import type { CompletedNode } from '../../plan/planner.js';
import type { PlanNode } from '../../plan/plan-schema.js';
import type { SessionEvent } from '../../session/event-types.js';

/** A node's merge conflict as its `node/conflicted` event recorded it. */
export type NodeConflict = SessionEvent<'node/conflicted'>['payload'];

/** At most this many characters of one side of a hunk reach the planner or the resolving node. */
const MAX_SIDE_CHARS = 2_000;

/**
 * The failure a replan is told about for a merge conflict: which node, which files, both sides of
 * every hunk (whole, up to a cap), and what a resolving node must do.
 */
export function conflictReplanError(nodeId: string, conflict: NodeConflict): string {
  return [
    `merge conflict: node ${nodeId} ran in its own workspace and its change touches the same lines as changes merged before it on ${conflict.branch}; its change was not merged.`,
    `Append one node that makes ${nodeId}'s change again on the files as they are now (the merged result), keeping the lines merged before ("run has") and adding what ${nodeId} meant ("node has").`,
    ...conflictHunksText(conflict),
  ].join('\n');
}

/** One line for a run paused on a conflict: where, and how to go on. */
export function conflictPauseLine(runId: string, nodeId: string, conflict: NodeConflict): string {
  const where = conflict.files.map((file) => (file.hunks.length === 0 ? file.path : `${file.path} line ${file.hunks.map((hunk) => hunk.line).join(', ')}`)).join('; ');
  return `paused: ${nodeId}'s change conflicts with changes merged before it (${where}; \`dagent log ${runId} --type node/conflicted\` shows both sides); \`dagent resume ${runId}\` runs ${nodeId} again on the merged result`;
}

/**
 * The node a replan without a planner appends for a conflict: a command node runs its command
 * again on the merged result (the same command the plan approved); any other node becomes an
 * edit node told its instruction and the hunks. It waits for the nodes that changed the conflicting
 * files before (already done), so no two unordered nodes write one file.
 */
export function conflictResolutionNode(failed: PlanNode, conflict: NodeConflict, completed: readonly CompletedNode[]): PlanNode {
  const paths = conflict.files.map((file) => file.path);
  const before = completed.filter((node) => node.nodeId !== failed.id && node.filesChanged.some((path) => paths.includes(path))).map((node) => node.nodeId);
  const dependsOn = [...new Set([...failed.dependsOn, ...before])];
  const note = `${failed.id}'s change conflicted with changes merged before it in ${paths.join(', ')}; this node makes it again on the merged result.`;
  if (failed.command !== undefined) {
    return { ...failed, id: `${failed.id}-remerge`, title: `${failed.title} (again, on the merged result)`, instructions: [failed.instructions, note].filter((line) => line !== '').join('\n\n'), dependsOn };
  }
  const { command: _command, tools: _tools, ...rest } = failed;
  return {
    ...rest,
    id: `resolve-${failed.id}`,
    kind: failed.kind === 'agent' ? 'agent' : 'edit',
    title: `Resolve ${failed.id}'s merge conflict`,
    instructions: [
      `Do what node ${failed.id} was told, on the files as they are now: ${failed.instructions || failed.title}`,
      note,
      'Keep the lines merged before ("run has") and add what the earlier attempt did ("node has"):',
      ...conflictHunksText(conflict),
    ].join('\n'),
    reads: [...new Set([...failed.reads, ...paths])],
    writes: [...new Set([...failed.writes, ...paths])],
    dependsOn,
  };
}

function conflictHunksText(conflict: NodeConflict): string[] {
  return conflict.files.flatMap((file) =>
    file.hunks.length === 0
      ? [`${file.path}: changed on both sides (no line hunks: binary, or deleted on one side)`]
      : [`${file.path}:`, ...file.hunks.flatMap((hunk) => [`  at line ${hunk.line}, run has:`, indent(hunk.ours), `  node has:`, indent(hunk.theirs)])],
  );
}

function indent(text: string): string {
  const clipped = text.length > MAX_SIDE_CHARS ? `${text.slice(0, MAX_SIDE_CHARS)}\n… (${text.length - MAX_SIDE_CHARS} more characters)` : text;
  return clipped
    .split('\n')
    .map((line) => `    | ${line}`)
    .join('\n');
}

/** Merge conflicts, as the log records them: a node's is forgotten when it starts again. */
export function noteConflicts(conflicts: Map<string, NodeConflict>, events: readonly SessionEvent[]): void {
  for (const event of events) {
    if (event.nodeId === null) continue;
    if (event.type === 'node/conflicted') conflicts.set(event.nodeId, event.payload);
    else if (event.type === 'node/started') conflicts.delete(event.nodeId);
  }
}
