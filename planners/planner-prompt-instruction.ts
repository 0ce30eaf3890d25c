import { formatPlanIssues, type CompletedNode, type Plan, type PlanIssue, type ReplanTrigger } from '../engine/index.js';

/** A failed node's error is cut to this many characters in the amend instruction (test output can be long). */
export const MAX_TRIGGER_ERROR_CHARS = 4_000;

/** A completed node's result is cut to this many characters in the amend instruction. */
export const MAX_COMPLETED_RESULT_CHARS = 1_000;

export interface PlanInstructionInput {
  readonly task: string;
  /** Workspace-relative files the task names with `@path`: named, never inlined. */
  readonly paths: readonly string[];
  /** The rendered repository map, sized to its budget. */
  readonly map: string;
  readonly tools: boolean;
}

/** The planner's instruction for a new plan: the task, the files it names, the repository map. Pure. */
export function planInstruction(input: PlanInstructionInput): string {
  return [
    '# Task',
    '',
    input.task.trim(),
    ...namedFiles(input.paths, input.tools),
    '',
    '# Repository map',
    '',
    input.map,
    '',
    '# Your answer',
    '',
    'Plan the task. Answer with the plan document as one JSON object.',
  ].join('\n');
}

function namedFiles(paths: readonly string[], tools: boolean): string[] {
  if (paths.length === 0) return [];
  const lead = tools
    ? 'The task names these files. Their content is not included here: read them with read_file (list_files for a folder) before you plan.'
    : 'The task names these files (their content is not included here):';
  return ['', '# Files the task names', '', lead, ...paths.map((path) => `- ${path}`)];
}

export interface AmendInstructionInput {
  readonly task: string;
  readonly plan: Plan;
  readonly mode: 'full' | 'append';
  readonly trigger: ReplanTrigger;
  readonly completed: readonly CompletedNode[];
  readonly map: string;
}

/**
 * The planner's instruction for an amendment: why the plan needs it, the task, the current plan,
 * what is done, the repository map as it is now, and the shape of the answer for the mode. Pure.
 */
export function amendInstruction(input: AmendInstructionInput): string {
  return [
    '# Amend the plan',
    '',
    'The plan below is being carried out, and it needs amending.',
    '',
    triggerText(input.trigger),
    '',
    '# Task',
    '',
    input.task.trim(),
    '',
    '# Current plan',
    '',
    '```json',
    planJson(input.plan),
    '```',
    '',
    '# Done so far',
    '',
    ...completedLines(input.completed),
    '',
    '# Repository map (as it is now)',
    '',
    input.map,
    '',
    '# Your answer',
    '',
    input.mode === 'append' ? appendAnswer(input.trigger) : fullAnswer(input.completed),
  ].join('\n');
}

/** The plan as JSON with one node per line: readable, and far fewer tokens than fully indented JSON. */
function planJson(plan: Plan): string {
  const nodes = plan.nodes.map((node) => `    ${JSON.stringify(node)}`).join(',\n');
  return `{\n  "goal": ${JSON.stringify(plan.goal)},\n  "rationale": ${JSON.stringify(plan.rationale)},\n  "nodes": [\n${nodes}\n  ]\n}`;
}

function triggerText(trigger: ReplanTrigger): string {
  if (trigger.kind === 'failure') {
    return [`Node ${trigger.nodeId} failed after its retries. Its error:`, '', '```', clip(trigger.error.trim(), MAX_TRIGGER_ERROR_CHARS), '```'].join('\n');
  }
  const files = trigger.files.length === 0 ? '(none named)' : trigger.files.join(', ');
  return [`Node ${trigger.nodeId} reported work the plan missed:`, `- title: ${trigger.title}`, `- files: ${files}`, `- reason: ${trigger.reason}`].join('\n');
}

function completedLines(completed: readonly CompletedNode[]): string[] {
  if (completed.length === 0) return ['No node has finished yet.'];
  return completed.map((node) => {
    const files = node.filesChanged.length === 0 ? 'no files changed' : `files changed: ${node.filesChanged.join(', ')}`;
    const result = clip(node.result.trim(), MAX_COMPLETED_RESULT_CHARS).replace(/\n/g, '\n  ');
    return `- ${node.nodeId} succeeded (${files}). Its result:\n  ${result === '' ? '(no answer)' : result}`;
  });
}

function appendAnswer(trigger: ReplanTrigger): string {
  const wiring =
    trigger.kind === 'failure'
      ? `Your nodes replace the failed node ${trigger.nodeId}: they start after its dependencies, and the nodes that waited for ${trigger.nodeId} wait for your nodes instead.`
      : `The nodes that waited for ${trigger.nodeId} will also wait for your nodes.`;
  return [
    'Keep the plan and add nodes for the work that is missing or failed. Answer with one JSON object holding only the new nodes:',
    '',
    '{ "nodes": [ { "id": "...", "kind": "edit", "title": "...", "instructions": "...", "reads": [], "writes": [], "dependsOn": [] } ] }',
    '',
    'New ids must differ from every id of the plan. A new node may depend on nodes of the plan and on other new nodes.',
    wiring,
  ].join('\n');
}

function fullAnswer(completed: readonly CompletedNode[]): string {
  const kept =
    completed.length === 0
      ? ''
      : ` Keep the nodes that already succeeded (${completed.map((node) => node.nodeId).join(', ')}) with the same ids and fields: they will not run again.`;
  return `Replan the task from here. Answer with a whole new plan document as one JSON object.${kept}`;
}

export interface RepairMessageInput {
  readonly issues: readonly PlanIssue[];
  /** 1 for the first repair. */
  readonly repair: number;
  readonly maxRepairs: number;
  /** What the answer must be: a whole plan document, or the append patch `{ "nodes": [...] }`. */
  readonly shape: 'plan' | 'append';
}

/** What the planner reads when its answer was invalid: the exact errors, and what to answer. Pure. */
export function repairMessage(input: RepairMessageInput): string {
  const answer =
    input.shape === 'plan'
      ? 'Answer again with the whole corrected plan document as one JSON object.'
      : 'Answer again with the corrected JSON object { "nodes": [...] } holding all the new nodes.';
  return [
    `Your answer cannot be used (repair ${input.repair} of ${input.maxRepairs}):`,
    '',
    formatPlanIssues(input.issues),
    '',
    `${answer} Fix exactly these problems and keep what was right.`,
  ].join('\n');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters cut]`;
}
