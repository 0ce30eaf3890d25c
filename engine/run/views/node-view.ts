import { NODE_TRANSITION_EVENT_TYPES } from '../storage/node-event.js';
import type { SessionEvent } from '../../session/event-types.js';
import { hasCaps, type RunBudget } from '../budget/run-budget.js';
import { LayeredMap } from './layered-map.js';
import { ZERO_TOKENS, type NodeView, type RunView } from './run-view-types.js';

/** The run view's nodes: each node's transitions, usage and plan entry, folded one event at a time. */

type NodeTransitionEvent = SessionEvent<(typeof NODE_TRANSITION_EVENT_TYPES)[number]>;

/**
 * What a node's own transition event does to it: the one definition of a node's status, attempts,
 * times, result and error. The run view folds it per node, and so does the scheduler's recovery
 * (`nodeStatesFromEvents`), so a resumed schedule and the screen cannot disagree on a node's state.
 * Attempts only grow: a reset to pending leaves no event and keeps the count.
 */
export function reduceNodeTransition(node: NodeView, event: NodeTransitionEvent): NodeView {
  switch (event.type) {
    case 'node/ready':
      return { ...node, status: 'ready' };
    case 'node/started':
      return { ...node, status: 'running', attempts: Math.max(node.attempts, event.payload.attempt), startedAt: event.createdAt, finishedAt: null, error: null, streamingText: null, reused: false, resumedFromStep: null };
    case 'node/succeeded':
      return { ...node, status: 'succeeded', finishedAt: event.createdAt, result: event.payload.result, streamingText: null };
    case 'node/failed':
      return { ...node, status: 'failed', finishedAt: event.createdAt, error: event.payload.error, streamingText: null };
    case 'node/skipped':
      return { ...node, status: 'skipped', error: event.payload.reason };
    case 'node/cancelled':
      return { ...node, status: 'cancelled', finishedAt: event.createdAt, streamingText: null };
    case 'node/retried':
      return { ...node, status: 'ready', error: event.payload.error, streamingText: null };
    case 'node/reset':
      return { ...node, status: 'pending', finishedAt: null, result: null, error: null, streamingText: null, reused: false, resumedFromStep: null };
  }
}

/** A cancelled run leaves no node running: whatever was running or ready is cancelled with it. */
export function settleRunningNodes(view: RunView): RunView {
  const nodes = new Map(view.nodes);
  for (const [id, node] of nodes) if (node.status === 'running' || node.status === 'ready') nodes.set(id, { ...node, status: 'cancelled', streamingText: null });
  return { ...view, nodes };
}

/** A run that starts again puts every node that did not succeed back to pending. */
export function resetUnfinishedNodes(view: RunView): RunView {
  const nodes = new Map(view.nodes);
  for (const [id, node] of nodes) if (node.status !== 'succeeded') nodes.set(id, { ...node, status: 'pending', streamingText: null });
  return { ...view, nodes };
}

interface PlanLike {
  nodes?: { id?: unknown; title?: unknown; kind?: unknown; dependsOn?: unknown; budget?: unknown }[];
}

export function withPlan(view: RunView, plan: unknown): RunView {
  const nodes = (plan as PlanLike | undefined)?.nodes;
  if (!Array.isArray(nodes)) return view;
  const next = new Map<string, NodeView>();
  const order: string[] = [];
  for (const raw of nodes) {
    if (typeof raw.id !== 'string') continue;
    const previous = view.nodes.get(raw.id);
    const base = previous ?? newNodeView(raw.id);
    next.set(raw.id, {
      ...base,
      title: typeof raw.title === 'string' ? raw.title : base.title,
      kind: typeof raw.kind === 'string' ? raw.kind : base.kind,
      dependsOn: Array.isArray(raw.dependsOn) ? raw.dependsOn.filter((id): id is string => typeof id === 'string') : [],
      budget: nodeBudget(raw.budget),
    });
    order.push(raw.id);
  }
  return { ...view, nodes: next, order };
}

/** A plan node's `budget` as the view keeps it: its caps, or null when it has none. */
function nodeBudget(raw: unknown): RunBudget | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { maxCostUsd, maxTokens } = raw as { maxCostUsd?: unknown; maxTokens?: unknown };
  const budget = { ...(typeof maxCostUsd === 'number' ? { maxCostUsd } : {}), ...(typeof maxTokens === 'number' ? { maxTokens } : {}) };
  return hasCaps(budget) ? budget : null;
}

/** A node as the view starts it: pending, nothing spent, titled by its id until a plan names it. */
export function newNodeView(id: string): NodeView {
  return {
    id,
    title: id,
    kind: 'agent',
    dependsOn: [],
    budget: null,
    status: 'pending',
    attempts: 0,
    startedAt: null,
    finishedAt: null,
    tokens: ZERO_TOKENS,
    costUsd: 0,
    modelCalls: 0,
    contextTokens: 0,
    compactionThreshold: null,
    compactions: [],
    model: null,
    routedTo: null,
    modelSwitches: [],
    pause: null,
    streamingText: null,
    result: null,
    error: null,
    lastEventSeq: 0,
    reused: false,
    resumedFromStep: null,
    saved: ZERO_TOKENS,
    savedCostUsd: 0,
    workspace: null,
  };
}

/** The planner's own session (model calls while planning or replanning): counted in the totals, no node of the plan. */
const PLANNER_SESSION = 'planner';

export function updateNode(view: RunView, event: SessionEvent, update: (node: NodeView) => NodeView): RunView {
  if (event.nodeId === null) return view;
  const transition = (NODE_TRANSITION_EVENT_TYPES as readonly string[]).includes(event.type);
  if (event.nodeId === PLANNER_SESSION && !view.nodes.has(PLANNER_SESSION) && !transition) return view;
  const existing = view.nodes.get(event.nodeId);
  // A surface that is not a node of the plan (the planner during a replan) counts in the totals only.
  if (existing === undefined && view.planVersion !== null && !transition) return view;
  const nodes = LayeredMap.from(view.nodes).with(event.nodeId, { ...update(existing ?? newNodeView(event.nodeId)), lastEventSeq: event.seq });
  const order = existing === undefined ? [...view.order, event.nodeId] : view.order;
  return { ...view, nodes, order };
}

/**
 * A model call's spend in the totals and its node's: an answer (`assistant/message`, which also
 * names the node's model) or a compaction summary (`compaction/summary`, its calls priced with
 * the summarizer's model).
 */
export function addUsage(view: RunView, event: SessionEvent<'assistant/message'> | SessionEvent<'compaction/summary'>): RunView {
  const usage = event.payload.usage ?? ZERO_TOKENS;
  const cost = event.payload.costUsd ?? 0;
  const calls = event.type === 'compaction/summary' ? (event.payload.attempts ?? 1) : 1;
  const totals = {
    input: view.totals.input + usage.input,
    output: view.totals.output + usage.output,
    cacheHit: view.totals.cacheHit + usage.cacheHit,
    reasoning: view.totals.reasoning + usage.reasoning,
    costUsd: view.totals.costUsd + cost,
    modelCalls: view.totals.modelCalls + calls,
  };
  const withTotals = { ...view, totals };
  if (event.nodeId === null) return withTotals;
  return updateNode(withTotals, event, (node) => ({
    ...node,
    tokens: {
      input: node.tokens.input + usage.input,
      output: node.tokens.output + usage.output,
      cacheHit: node.tokens.cacheHit + usage.cacheHit,
      reasoning: node.tokens.reasoning + usage.reasoning,
    },
    costUsd: node.costUsd + cost,
    modelCalls: node.modelCalls + calls,
    ...(event.type === 'assistant/message' ? { model: `${event.payload.provider}:${event.payload.model}`, streamingText: null } : {}),
  }));
}
