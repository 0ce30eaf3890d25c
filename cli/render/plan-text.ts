import { visibleText } from '../../engine/read-face.js';
import { formatBudgetUsd, nodeKind, nodeSubject, type Plan, type NodeEstimate, type PlanAnalysis, type PlanNode, type PlanStatus } from '../../engine/index.js';
import { formatTokens, formatUsd } from './format-estimate.js';

export interface PlanTextOptions {
  readonly runId?: string;
  readonly version?: number;
  readonly status?: PlanStatus;
  /** Add each node's title, reads, writes, dependencies and settings below the stage table. */
  readonly details?: boolean;
  /** Nodes of this version that kept their result from an earlier one (`node/reused`). */
  readonly reused?: readonly string[];
}

/** Files shown per node in the stage table before `+N more`. */
export const MAX_FILES_PER_ROW = 3;

/**
 * The plan for review, as plain text (no colours):
 * ```
 * run r-7f3a · plan v1 · awaiting approval
 * stage 1  read-models   read     src/models/*.ts
 * stage 2  edit-api      edit     src/api/invoices.ts     ┐ parallel
 *          edit-pdf      edit     src/render/pdf.ts       ┘
 * stage 3  test          command  npm test
 * critical path: read-models → edit-api → test · width 2 · ≈ 48K tokens ≈ $0.02
 * lint: src/jobs/reminder.ts imports Invoice.total but no node writes it
 * ```
 * A node shows its command, else what it writes, else what it reads. Control characters and
 * terminal escapes in the plan's text are shown as escapes (`visibleText`), never obeyed.
 */
export function renderPlanText(plan: Plan, analysis: PlanAnalysis, options: PlanTextOptions = {}): string {
  const byId = new Map(plan.nodes.map((node) => [node.id, visibleNode(node)]));
  const nodeOf = (id: string): PlanNode => byId.get(id) ?? missingNode(id);
  const lines: string[] = [];
  const header = headerLine(options);
  if (header !== '') lines.push(header);
  lines.push(...stageRows(analysis.stages, nodeOf));
  lines.push(summaryLine(analysis));
  if (options.reused !== undefined && options.reused.length > 0) lines.push(`reused: ${options.reused.join(', ')} (kept from an earlier plan version: nothing they depend on changed)`);
  for (const finding of analysis.lint) lines.push(`${finding.level === 'error' ? 'lint error' : 'lint'}: ${finding.message}`);
  if (options.details === true) lines.push('', ...detailLines(analysis, nodeOf));
  // Ids in the analysis and lint messages come from the plan too.
  return lines.map((line) => visibleText(line)).join('\n');
}

/** The node with every text field made visible first, so column widths count what is printed. */
function visibleNode(node: PlanNode): PlanNode {
  const shown = (text: string): string => visibleText(text);
  return {
    ...node,
    id: shown(node.id),
    title: shown(node.title),
    reads: node.reads.map(shown),
    writes: node.writes.map(shown),
    dependsOn: node.dependsOn.map(shown),
    ...(node.command === undefined ? {} : { command: shown(node.command) }),
    ...(node.role === undefined ? {} : { role: shown(node.role) }),
    ...(node.model === undefined ? {} : { model: typeof node.model === 'string' ? shown(node.model) : node.model.map(shown) }),
    ...(node.fallbackModels === undefined ? {} : { fallbackModels: node.fallbackModels.map(shown) }),
    ...(node.tools === undefined ? {} : { tools: node.tools.map(shown) }),
  };
}

function headerLine(options: PlanTextOptions): string {
  const parts = [
    options.runId === undefined ? undefined : `run ${options.runId}`,
    options.version === undefined ? undefined : `plan v${options.version}`,
    options.status?.replace('_', ' '),
  ];
  return parts.filter((part) => part !== undefined).join(' · ');
}

function stageRows(stages: PlanAnalysis['stages'], nodeOf: (id: string) => PlanNode): string[] {
  const nodes = stages.flat().map(nodeOf);
  const labelWidth = `stage ${stages.length}`.length;
  const idWidth = Math.max(0, ...nodes.map((node) => node.id.length));
  const kindWidth = Math.max(0, ...nodes.map((node) => node.kind.length));
  const rows = stages.map((stage, stageIndex) =>
    stage.map((id, position) => {
      const node = nodeOf(id);
      const label = position === 0 ? `stage ${stageIndex + 1}` : '';
      return `${label.padEnd(labelWidth)}  ${node.id.padEnd(idWidth)}  ${node.kind.padEnd(kindWidth)}  ${filesText(node)}`.trimEnd();
    }),
  );
  const bracketColumn = Math.max(0, ...rows.filter((stage) => stage.length > 1).flat().map((row) => row.length)) + 2;
  return rows.flatMap((stage) => {
    if (stage.length < 2) return stage;
    return stage.map((row, position) => {
      const mark = position === 0 ? '┐ parallel' : position === stage.length - 1 ? '┘' : '│';
      return `${row.padEnd(bracketColumn)}${mark}`;
    });
  });
}

function filesText(node: PlanNode): string {
  const subject = nodeSubject(node);
  return subject.shows === 'command' ? subject.command : fileList(subject.files);
}

function fileList(files: readonly string[]): string {
  if (files.length <= MAX_FILES_PER_ROW) return files.join(', ');
  return `${files.slice(0, MAX_FILES_PER_ROW).join(', ')} +${files.length - MAX_FILES_PER_ROW} more`;
}

function summaryLine(analysis: PlanAnalysis): string {
  const parts = [`critical path: ${analysis.criticalPath.join(' → ')}`, `width ${analysis.width}`];
  if (analysis.estimate !== null) parts.push(`≈ ${formatTokens(analysis.estimate.tokens)} tokens ≈ ${formatUsd(analysis.estimate.costUsd)}`);
  return parts.join(' · ');
}

function detailLines(analysis: PlanAnalysis, nodeOf: (id: string) => PlanNode): string[] {
  const estimates = new Map((analysis.estimate?.nodes ?? []).map((estimate) => [estimate.nodeId, estimate]));
  return analysis.stages.flat().flatMap((id) => {
    const node = nodeOf(id);
    const estimate = estimates.get(id);
    const fields: [string, string | undefined][] = [
      ['reads', node.reads.length > 0 ? node.reads.join(', ') : undefined],
      ['writes', node.writes.length > 0 ? node.writes.join(', ') : undefined],
      ['after', node.dependsOn.length > 0 ? node.dependsOn.join(', ') : undefined],
      ['command', node.command],
      ['role', node.role],
      ['model', modelsText(node) ?? chosenModelText(estimate)],
      ['tools', node.tools?.join(', ')],
      ['steps', node.maxSteps === undefined ? undefined : `at most ${node.maxSteps}`],
      ['budget', budgetText(node.budget)],
      ['cost', estimate === undefined || !nodeKind(node.kind).runsModel ? undefined : `≈ ${formatTokens(estimate.tokens)} tokens ≈ ${formatUsd(estimate.costUsd)}`],
    ];
    const present = fields.filter((field): field is [string, string] => field[1] !== undefined);
    return [`${node.id} (${node.kind}): ${node.title}`, ...present.map(([name, value]) => `  ${name.padEnd(7)} ${value}`)];
  });
}

function missingNode(id: string): never {
  throw new Error(`renderPlanText: the analysis names node "${id}", which the plan does not have`);
}

/** A node that names no model: the one it will run on, and why (`x (small model: simple work)`, `y (the run's model)`). */
function chosenModelText(estimate: NodeEstimate | undefined): string | undefined {
  if (estimate?.model === undefined) return undefined;
  return `${estimate.model} (${estimate.routed === true ? 'small model: the plan marks it simple' : "the run's model"})`;
}

/** A node's own budget: `at most $0.5000 · 6000 tokens`, over all its attempts. */
function budgetText(budget: PlanNode['budget']): string | undefined {
  if (budget === undefined) return undefined;
  const caps = [...(budget.maxCostUsd === undefined ? [] : [formatBudgetUsd(budget.maxCostUsd)]), ...(budget.maxTokens === undefined ? [] : [`${budget.maxTokens} tokens`])];
  return caps.length === 0 ? undefined : `at most ${caps.join(' · ')} over all its attempts`;
}

/** `a`, or `a, then b, c` when the node lists models to fall back to. */
function modelsText(node: PlanNode): string | undefined {
  const models = [...(node.model === undefined ? [] : typeof node.model === 'string' ? [node.model] : node.model), ...(node.fallbackModels ?? [])];
  if (models.length === 0) return undefined;
  return models.length === 1 ? models[0] : `${models[0]!}, then ${models.slice(1).join(', ')}`;
}
