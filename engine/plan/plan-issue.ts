/**
 * One problem with a plan document. `message` is user-readable and names where the problem is
 * (`nodes[2] (edit-b).dependsOn: unknown node "edit-z"`); `nodeId` and `file` (a workspace file
 * the problem concerns) are there for tools and the planner's repair prompt.
 */
export interface PlanIssue {
  readonly code: PlanIssueCode;
  readonly message: string;
  readonly nodeId?: string;
  readonly file?: string;
}

export type PlanIssueCode =
  | 'syntax'
  | 'schema'
  | 'duplicate-id'
  | 'unknown-dependency'
  | 'self-dependency'
  | 'cycle'
  | 'missing-command'
  | 'simple-without-model'
  | 'write-conflict'
  | 'protected-write'
  | 'unknown-node';

/** `nodes[2] (edit-b)`: the node's place in the document, and its id when it has one. */
export function nodeLocation(index: number, id: unknown): string {
  return typeof id === 'string' && id.length > 0 ? `nodes[${index}] (${id})` : `nodes[${index}]`;
}

/** The issues as text: one per line, prefixed by the document's name when known. */
export function formatPlanIssues(issues: readonly PlanIssue[], source?: string): string {
  const prefix = source === undefined ? '' : `${source}: `;
  if (issues.length === 1) return `${prefix}${issues[0]!.message}`;
  const lines = issues.map((issue) => `  ${issue.message}`);
  return [`${prefix}${issues.length} problems in the plan:`, ...lines].join('\n');
}
