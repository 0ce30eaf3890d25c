import { nodeKind, PLAN_NODE_KINDS, type NodeView, type PlanNodeKind, type RunView } from '../engine/index.js';

/** What a command node is expected to take before this run has timed one: a test or build run. */
export const DEFAULT_COMMAND_MS = 5_000;
/** A running node that has outrun its kind's usual time is given this share of its time so far again. */
const OVERRUN_SHARE = 0.25;
/** The scheduler's default `-j`: the most nodes at once, so a wide plan is not counted as all at once. */
const DEFAULT_CONCURRENCY = 4;

const SETTLED = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

type DurationKind = 'model' | 'command';

/**
 * Time left in a run: the longest chain of dependencies through the nodes not yet settled, each
 * node its kind's usual duration in this run (the mean of the nodes of that kind that finished:
 * model nodes by model nodes, command nodes by command nodes — a test run takes seconds where an
 * edit takes a minute), a running node less what it has already run. A command node before any
 * has finished counts `DEFAULT_COMMAND_MS`; a model node before any has finished leaves the
 * estimate undefined (nothing to go by). Never less than the remaining work spread over the
 * default concurrency.
 */
export function estimateTimeLeft(view: RunView, now: number): number | undefined {
  const nodes = view.order.map((id) => view.nodes.get(id)).filter((node): node is NodeView => node !== undefined);
  const usual = usualDurations(nodes);
  const remaining = new Map<string, number>();
  for (const node of nodes) {
    if (SETTLED.has(node.status)) continue;
    const expected = usual[durationKind(node)];
    if (expected === undefined) return undefined;
    const ran = node.status === 'running' && node.startedAt !== null ? Math.max(0, now - Date.parse(node.startedAt)) : 0;
    remaining.set(node.id, ran === 0 ? expected : Math.max(expected - ran, ran * OVERRUN_SHARE));
  }
  if (remaining.size === 0) return undefined;
  const chain = longestChain(nodes, remaining);
  const work = [...remaining.values()].reduce((sum, ms) => sum + ms, 0);
  return Math.max(chain, work / DEFAULT_CONCURRENCY);
}

function durationKind(node: NodeView): DurationKind {
  const known = (PLAN_NODE_KINDS as readonly string[]).includes(node.kind);
  return known && !nodeKind(node.kind as PlanNodeKind).runsModel ? 'command' : 'model';
}

/** The mean duration of the succeeded nodes of each kind; a command's default until one has run. */
function usualDurations(nodes: readonly NodeView[]): Partial<Record<DurationKind, number>> {
  const sums: Record<DurationKind, { total: number; count: number }> = { model: { total: 0, count: 0 }, command: { total: 0, count: 0 } };
  for (const node of nodes) {
    if (node.status !== 'succeeded' || node.startedAt === null || node.finishedAt === null) continue;
    const sum = sums[durationKind(node)];
    sum.total += Math.max(0, Date.parse(node.finishedAt) - Date.parse(node.startedAt));
    sum.count += 1;
  }
  return {
    ...(sums.model.count === 0 ? {} : { model: sums.model.total / sums.model.count }),
    command: sums.command.count === 0 ? DEFAULT_COMMAND_MS : sums.command.total / sums.command.count,
  };
}

/** The longest path of remaining time through the unsettled nodes, following `dependsOn`. */
function longestChain(nodes: readonly NodeView[], remaining: ReadonlyMap<string, number>): number {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const finish = new Map<string, number>();
  const visiting = new Set<string>();
  const finishOf = (id: string): number => {
    const known = finish.get(id);
    if (known !== undefined) return known;
    const own = remaining.get(id);
    if (own === undefined || visiting.has(id)) return 0;
    visiting.add(id);
    const before = Math.max(0, ...(byId.get(id)?.dependsOn ?? []).map(finishOf));
    visiting.delete(id);
    finish.set(id, before + own);
    return before + own;
  };
  return Math.max(0, ...[...remaining.keys()].map(finishOf));
}
