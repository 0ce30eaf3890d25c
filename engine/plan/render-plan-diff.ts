import { nodeSubject } from './node-kinds.js';
import type { FieldChange, PlanDiff } from './plan-diff.js';
import type { PlanNode } from './plan-schema.js';
import { visibleText } from '../visible-text.js';

/** Values longer than this are reported as "changed" instead of printed before → after. */
export const MAX_DIFF_VALUE_CHARS = 100;

/**
 * A plan diff as text, one change per line: `+` added, `-` removed, `~` changed.
 * ```
 * ~ goal: "Rename area" → "Rename area() everywhere"
 * + edit-e (edit) Update E · writes src/e.ts
 * - edit-x (edit) Remove X
 * ~ edit-b.writes: ["src/b.ts"] → ["src/b.ts","src/e.ts"]
 * ~ edit-b.instructions: changed
 * + edge edit-e → test
 * - edge edit-a → test
 * ```
 * An empty diff is `no changes`. Control characters and terminal escapes in titles, commands and
 * values are shown as escapes (`visibleText`): a reviewer reads what would run.
 */
export function renderPlanDiff(diff: PlanDiff): string {
  const lines = [
    ...diff.planChanges.map((change) => `~ ${changeText(change.field, change)}`),
    ...diff.addedNodes.map((node) => `+ ${nodeSummary(node)}`),
    ...diff.removedNodes.map((node) => `- ${nodeSummary(node)}`),
    ...diff.changedNodes.flatMap(({ id, changes }) => changes.map((change) => `~ ${changeText(`${id}.${change.field}`, change)}`)),
    ...diff.addedEdges.map((edge) => `+ edge ${edge.from} → ${edge.to}`),
    ...diff.removedEdges.map((edge) => `- edge ${edge.from} → ${edge.to}`),
  ];
  return lines.length === 0 ? 'no changes' : lines.map((line) => visibleText(line)).join('\n');
}

function nodeSummary(node: PlanNode): string {
  const subject = nodeSubject(node);
  const files = subject.shows === 'command' ? subject.command : subject.files.length > 0 ? `${subject.shows} ${subject.files.join(', ')}` : '';
  return `${node.id} (${node.kind}) ${node.title}${files === '' ? '' : ` · ${files}`}`;
}

function changeText(label: string, change: FieldChange): string {
  const before = valueText(change.before);
  const after = valueText(change.after);
  if (before.length > MAX_DIFF_VALUE_CHARS || after.length > MAX_DIFF_VALUE_CHARS) return `${label}: changed`;
  return `${label}: ${before} → ${after}`;
}

function valueText(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}
