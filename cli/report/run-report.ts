import { analyzePlan, foldRunView, recordedLint, type Plan, type RunView, type SessionEvent } from '../../engine/read-face.js';
import type { LintFinding, RunRecord } from '../../engine/index.js';

/**
 * Everything `dagent report` says about a run, as data: `--format json` prints it as it is, and the
 * markdown and html renderers read only this. Built from the run's log alone (plus the diff stat
 * of its files), so a report of a finished run is the same whenever it is made.
 */
export interface RunReport {
  readonly schema: 'dagent.report/1';
  readonly run: ReportRun;
  readonly plan: ReportPlan | null;
  readonly nodes: readonly ReportNode[];
  readonly totals: ReportTotals;
  readonly replans: readonly ReportReplan[];
  readonly lint: readonly { readonly version: number; readonly findings: readonly LintFinding[] }[];
  readonly diff: ReportDiff;
  readonly reproduce: readonly string[];
}

export interface ReportRun {
  readonly id: string;
  readonly task: string;
  readonly status: string;
  readonly mode: string;
  readonly model: string | null;
  readonly workspace: string;
  readonly planVersion: number | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly durationMs: number | null;
  readonly error: string | null;
}

export interface ReportPlan {
  readonly version: number;
  readonly goal: string;
  readonly stages: readonly (readonly string[])[];
  /** The longest chain of dependent nodes, weighed by each node's measured time when every node has one. */
  readonly criticalPath: readonly string[];
  readonly criticalPathBasis: 'measured-time' | 'plan';
  readonly width: number;
  readonly edges: readonly { readonly from: string; readonly to: string }[];
}

export interface TokenCounts {
  readonly input: number;
  readonly output: number;
  readonly cacheHit: number;
  readonly reasoning: number;
}

export interface ReportNode {
  readonly id: string;
  readonly title: string;
  readonly kind: string;
  readonly status: string;
  readonly attempts: number;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly durationMs: number | null;
  readonly tokens: TokenCounts;
  readonly costUsd: number;
  readonly modelCalls: number;
  /** Tool results per tool name, and how many of them were errors. */
  readonly toolCalls: readonly { readonly name: string; readonly count: number; readonly errors: number }[];
  readonly compactions: number;
  readonly filesChanged: readonly string[];
  readonly result: string | null;
  readonly error: string | null;
}

export interface ReportTotals {
  readonly tokens: TokenCounts;
  readonly costUsd: number;
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly nodes: Readonly<Record<string, number>>;
}

export interface ReportReplan {
  readonly trigger: string;
  readonly mode: string;
  readonly nodeId: string | null;
  readonly progress: number;
  readonly outcome: string | null;
  readonly version: number | null;
  readonly reason: string | null;
  readonly addedNodes: readonly string[];
  readonly removedNodes: readonly string[];
  readonly addedEdges: readonly string[];
  readonly removedEdges: readonly string[];
}

export interface DiffFileStat {
  readonly path: string;
  readonly change: string;
  readonly added: number;
  readonly removed: number;
  readonly nodeIds: readonly string[];
}

export type ReportDiff =
  | { readonly available: true; readonly files: readonly DiffFileStat[]; readonly added: number; readonly removed: number }
  | { readonly available: false; readonly reason: string };

export interface RunReportInput {
  readonly run: RunRecord;
  /** The run's whole log, in seq order. */
  readonly events: readonly SessionEvent[];
  /** The run's current plan (none for a react run or a run that never planned). */
  readonly plan: { readonly version: number; readonly plan: Plan } | null;
  readonly diff: ReportDiff;
  readonly reproduce: readonly string[];
}

/** The report of a run: a pure fold over its log, the same fold `status` and the dashboard read. */
export function buildRunReport(input: RunReportInput): RunReport {
  const view = foldRunView(input.run.id, input.events);
  const nodes = view.order.map((id) => reportNode(view, id, input.events));
  return {
    schema: 'dagent.report/1',
    run: reportRun(input.run, view),
    plan: input.plan === null ? null : reportPlan(input.plan.version, input.plan.plan, nodes),
    nodes,
    totals: {
      tokens: { input: view.totals.input, output: view.totals.output, cacheHit: view.totals.cacheHit, reasoning: view.totals.reasoning },
      costUsd: view.totals.costUsd,
      modelCalls: view.totals.modelCalls,
      toolCalls: input.events.filter((event) => event.type === 'tool/result').length,
      nodes: countBy(nodes.map((node) => node.status)),
    },
    replans: view.replans.map(reportReplan),
    lint: lintByVersion(input.events),
    diff: input.diff,
    reproduce: input.reproduce,
  };
}

function reportRun(run: RunRecord, view: RunView): ReportRun {
  const model = typeof run.config.model === 'string' ? run.config.model : null;
  return {
    id: run.id,
    task: view.task === '' ? run.task : view.task,
    status: view.status,
    mode: run.mode,
    model,
    workspace: run.workspace,
    planVersion: view.planVersion,
    createdAt: run.createdAt,
    startedAt: view.startedAt,
    finishedAt: view.finishedAt,
    durationMs: millisBetween(view.startedAt, view.finishedAt),
    error: view.error,
  };
}

function reportPlan(version: number, plan: Plan, nodes: readonly ReportNode[]): ReportPlan {
  const measured = new Map(nodes.map((node) => [node.id, node.durationMs]));
  const timed = plan.nodes.every((node) => typeof measured.get(node.id) === 'number');
  const analysis = analyzePlan(plan, timed ? { costOf: (node) => measured.get(node.id) ?? 0 } : {});
  return {
    version,
    goal: plan.goal,
    stages: analysis.stages,
    criticalPath: analysis.criticalPath,
    criticalPathBasis: timed ? 'measured-time' : 'plan',
    width: analysis.width,
    edges: plan.nodes.flatMap((node) => node.dependsOn.map((from) => ({ from, to: node.id }))),
  };
}

function reportNode(view: RunView, id: string, events: readonly SessionEvent[]): ReportNode {
  const node = view.nodes.get(id)!;
  const tools = new Map<string, { count: number; errors: number }>();
  let filesChanged: readonly string[] = [];
  for (const event of events) {
    if (event.nodeId !== id) continue;
    if (event.type === 'tool/result') {
      const entry = tools.get(event.payload.name) ?? { count: 0, errors: 0 };
      tools.set(event.payload.name, { count: entry.count + 1, errors: entry.errors + (event.payload.isError ? 1 : 0) });
    } else if (event.type === 'node/succeeded') {
      filesChanged = event.payload.filesChanged ?? [];
    }
  }
  return {
    id,
    title: node.title,
    kind: node.kind,
    status: node.status,
    attempts: node.attempts,
    startedAt: node.startedAt,
    finishedAt: node.finishedAt,
    durationMs: millisBetween(node.startedAt, node.finishedAt),
    tokens: node.tokens,
    costUsd: node.costUsd,
    modelCalls: node.modelCalls,
    toolCalls: [...tools].sort(([left], [right]) => left.localeCompare(right)).map(([name, counts]) => ({ name, ...counts })),
    compactions: node.compactions.length,
    filesChanged,
    result: node.result,
    error: node.error,
  };
}

function reportReplan(replan: RunView['replans'][number]): ReportReplan {
  return {
    trigger: replan.trigger,
    mode: replan.mode,
    nodeId: replan.nodeId ?? null,
    progress: replan.progress,
    outcome: replan.outcome ?? null,
    version: replan.version ?? null,
    reason: replan.change?.reason ?? replan.reason ?? null,
    addedNodes: replan.change?.addedNodes ?? [],
    removedNodes: replan.change?.removedNodes ?? [],
    addedEdges: replan.change?.addedEdges ?? [],
    removedEdges: replan.change?.removedEdges ?? [],
  };
}

/** The lint findings each plan version was stored with. */
function lintByVersion(events: readonly SessionEvent[]): { version: number; findings: LintFinding[] }[] {
  const versions = events.flatMap((event) => (event.type === 'plan/created' || event.type === 'plan/amended' ? [event.payload.version] : []));
  return [...new Set(versions)].flatMap((version) => {
    const findings = recordedLint(events, version);
    return findings === undefined || findings.length === 0 ? [] : [{ version, findings }];
  });
}

function millisBetween(start: string | null, end: string | null): number | null {
  if (start === null || end === null) return null;
  return Math.max(0, Date.parse(end) - Date.parse(start));
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
