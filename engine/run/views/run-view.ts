import { NODE_TRANSITION_EVENT_TYPES } from '../storage/node-event.js';
import type { SessionEvent } from '../../session/event-types.js';
import type { RunStatus } from '../storage/run-status.js';

/**
 * The state of a run as `dagent status` and the dashboard show it: a pure fold over the run's
 * events. Both read it through `reduceRunView`, so a dashboard bug reproduces in `status`.
 */

export type NodeViewStatus = 'pending' | 'ready' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export interface TokenTotals {
  readonly input: number;
  readonly output: number;
  readonly cacheHit: number;
  readonly reasoning: number;
}

export interface CompactionView {
  readonly compactionId: string;
  readonly seq: number;
  readonly trigger: string;
  readonly tokensBefore: number;
  readonly tokensAfter?: number;
  readonly outcome?: 'committed' | 'failed' | 'discarded';
}

export interface NodeView {
  readonly id: string;
  readonly title: string;
  readonly kind: string;
  readonly dependsOn: readonly string[];
  readonly status: NodeViewStatus;
  readonly attempts: number;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly tokens: TokenTotals;
  readonly costUsd: number;
  readonly modelCalls: number;
  /** Estimated tokens of the node's last request: its context fill. */
  readonly contextTokens: number;
  /** The token count at which the node compacts (from its last request), when it has a compactor. */
  readonly compactionThreshold: number | null;
  readonly compactions: readonly CompactionView[];
  /** The text of the model response streaming now (`text/streamed` so far); null between responses. */
  readonly streamingText: string | null;
  readonly result: string | null;
  readonly error: string | null;
  readonly lastEventSeq: number;
}

export interface PendingApproval {
  readonly seq: number;
  readonly nodeId: string | null;
  readonly toolCallId: string;
  readonly tool: string;
  readonly args: unknown;
  /** One line a human can judge, e.g. `run_command npm test`. */
  readonly summary: string;
}

export interface ReplanView {
  readonly seq: number;
  readonly trigger: string;
  readonly mode: string;
  /** The node whose failure or report started it. */
  readonly nodeId?: string;
  /** Share of nodes succeeded when it started, 0–1. */
  readonly progress: number;
  readonly outcome?: string;
  readonly version?: number;
  /** Why a replan gave up or failed. */
  readonly reason?: string;
  /** What the new plan version changed, from its `plan/amended` diff. */
  readonly change?: PlanChangeView;
}

export interface PlanChangeView {
  readonly reason: string;
  readonly addedNodes: readonly string[];
  readonly removedNodes: readonly string[];
  /** `from→to` pairs. */
  readonly addedEdges: readonly string[];
  readonly removedEdges: readonly string[];
}

export interface ReportedWork {
  readonly seq: number;
  readonly nodeId: string | null;
  readonly title: string;
  readonly files: readonly string[];
}

export interface RunView {
  readonly runId: string;
  readonly task: string;
  readonly status: RunStatus;
  readonly planVersion: number | null;
  readonly planHash: string | null;
  readonly nodes: ReadonlyMap<string, NodeView>;
  /** Node ids in plan order. */
  readonly order: readonly string[];
  readonly totals: TokenTotals & { readonly costUsd: number; readonly modelCalls: number };
  readonly approvals: readonly PendingApproval[];
  readonly replans: readonly ReplanView[];
  readonly reportedWork: readonly ReportedWork[];
  /** Why a paused run waits (a replan under review). */
  readonly pausedReason: string | null;
  readonly cancelRequested: boolean;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly lastSeq: number;
  readonly error: string | null;
}

const ZERO_TOKENS: TokenTotals = { input: 0, output: 0, cacheHit: 0, reasoning: 0 };

export function emptyRunView(runId: string): RunView {
  return {
    runId,
    task: '',
    status: 'planning',
    planVersion: null,
    planHash: null,
    nodes: new Map(),
    order: [],
    totals: { ...ZERO_TOKENS, costUsd: 0, modelCalls: 0 },
    approvals: [],
    replans: [],
    reportedWork: [],
    pausedReason: null,
    cancelRequested: false,
    startedAt: null,
    finishedAt: null,
    lastSeq: 0,
    error: null,
  };
}

/** Event types the view reads; `status` and the dashboard query only these. */
export const RUN_VIEW_EVENT_TYPES = [
  'run/created',
  'run/started',
  'run/succeeded',
  'run/failed',
  'run/cancelled',
  'run/paused',
  'plan/created',
  'plan/approved',
  'plan/rejected',
  'plan/amended',
  ...NODE_TRANSITION_EVENT_TYPES,
  'assistant/message',
  'text/streamed',
  'model/retried',
  'request/context',
  'compaction/start',
  'compaction/end',
  'approval/requested',
  'approval/granted',
  'approval/denied',
  'replan/started',
  'replan/finished',
  'work/reported',
  'run/cancel-requested',
] as const;

export function reduceRunView(view: RunView, event: SessionEvent): RunView {
  const next = reduceEvent(view, event);
  return next === view ? { ...view, lastSeq: Math.max(view.lastSeq, event.seq) } : { ...next, lastSeq: Math.max(next.lastSeq, event.seq) };
}

export function foldRunView(runId: string, events: readonly SessionEvent[]): RunView {
  let view = emptyRunView(runId);
  for (const event of events) view = reduceRunView(view, event);
  return view;
}

function reduceEvent(view: RunView, event: SessionEvent): RunView {
  switch (event.type) {
    case 'run/created':
      return { ...view, task: event.payload.task };
    case 'run/started':
      return { ...resetUnfinishedNodes(view), status: 'running', startedAt: view.startedAt ?? event.createdAt, finishedAt: null, error: null, pausedReason: null, cancelRequested: false };
    case 'run/paused':
      return { ...view, status: 'awaiting_approval', pausedReason: event.payload.reason };
    case 'run/cancel-requested':
      return { ...view, cancelRequested: true };
    case 'work/reported':
      return { ...view, reportedWork: [...view.reportedWork, { seq: event.seq, nodeId: event.nodeId, title: event.payload.title, files: event.payload.files }] };
    case 'run/succeeded':
      return { ...view, status: 'succeeded', finishedAt: event.createdAt };
    case 'run/failed':
      return { ...view, status: 'failed', finishedAt: event.createdAt, error: event.payload.error };
    case 'run/cancelled':
      return { ...settleRunningNodes(view), status: 'cancelled', finishedAt: event.createdAt };
    case 'plan/created':
      return withPlan({ ...view, planVersion: event.payload.version, planHash: event.payload.hash, status: view.status === 'running' ? 'running' : 'awaiting_approval' }, event.payload.plan);
    case 'plan/amended':
      return withPlan(
        withPlanChange({ ...view, planVersion: event.payload.version, planHash: event.payload.hash, status: view.status === 'running' ? 'running' : 'awaiting_approval' }, event),
        event.payload.plan,
      );
    case 'plan/approved':
      return { ...view, status: view.status === 'running' ? view.status : 'approved', planHash: event.payload.hash };
    case 'plan/rejected':
      return { ...view, status: 'rejected' };
    case 'node/ready':
    case 'node/started':
    case 'node/succeeded':
    case 'node/failed':
    case 'node/skipped':
    case 'node/cancelled':
    case 'node/retried':
      return updateNode(view, event, (node) => reduceNodeTransition(node, event));
    case 'assistant/message':
      return addUsage(view, event);
    case 'text/streamed':
      return updateNode(view, event, (node) => ({ ...node, streamingText: (node.streamingText ?? '') + event.payload.text }));
    case 'model/retried':
      // The failed attempt's text is dropped; the retried call streams from its beginning.
      return updateNode(view, event, (node) => ({ ...node, streamingText: null }));
    case 'request/context':
      return updateNode(view, event, (node) => ({
        ...node,
        contextTokens: event.payload.estimatedTokens,
        compactionThreshold: event.payload.compactionThresholdTokens ?? node.compactionThreshold,
      }));
    case 'compaction/start':
      return updateNode(view, event, (node) => ({
        ...node,
        compactions: [
          ...node.compactions,
          { compactionId: event.payload.compactionId, seq: event.seq, trigger: event.payload.trigger, tokensBefore: event.payload.tokensBefore },
        ],
      }));
    case 'compaction/end':
      return updateNode(view, event, (node) => ({
        ...node,
        compactions: node.compactions.map((compaction) =>
          compaction.compactionId === event.payload.compactionId
            ? { ...compaction, outcome: event.payload.outcome, ...(event.payload.tokensAfter === undefined ? {} : { tokensAfter: event.payload.tokensAfter }) }
            : compaction,
        ),
      }));
    case 'approval/requested':
      return {
        ...view,
        approvals: [
          ...view.approvals,
          {
            seq: event.seq,
            nodeId: event.nodeId,
            toolCallId: event.payload.toolCallId,
            tool: event.payload.tool,
            args: event.payload.args,
            summary: typeof event.payload.summary === 'string' ? event.payload.summary : event.payload.tool,
          },
        ],
      };
    case 'approval/granted':
    case 'approval/denied':
      return { ...view, approvals: view.approvals.filter((approval) => approval.toolCallId !== event.payload.toolCallId) };
    case 'replan/started':
      return {
        ...view,
        replans: [
          ...view.replans,
          {
            seq: event.seq,
            trigger: event.payload.trigger,
            mode: event.payload.mode,
            progress: event.payload.progress,
            ...(typeof event.payload.nodeId === 'string' ? { nodeId: event.payload.nodeId } : {}),
          },
        ],
      };
    case 'replan/finished': {
      const replans = [...view.replans];
      const last = replans.pop();
      if (last === undefined) return view;
      const payload = event.payload;
      const detail = payload.outcome === 'amended' ? { version: payload.version } : { reason: payload.outcome === 'gave-up' ? payload.reason : payload.error };
      return { ...view, replans: [...replans, { ...last, outcome: payload.outcome, ...detail }] };
    }
    default:
      return view;
  }
}

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
      return { ...node, status: 'running', attempts: Math.max(node.attempts, event.payload.attempt), startedAt: event.createdAt, finishedAt: null, error: null, streamingText: null };
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
  }
}

/** A cancelled run leaves no node running: whatever was running or ready is cancelled with it. */
interface DiffLike {
  addedNodes?: { id?: unknown }[];
  removedNodes?: { id?: unknown }[];
  addedEdges?: { from?: unknown; to?: unknown }[];
  removedEdges?: { from?: unknown; to?: unknown }[];
}

/** A new plan version during a replan: what it changed goes on the replan it belongs to. */
function withPlanChange(view: RunView, event: SessionEvent<'plan/amended'>): RunView {
  const diff = (event.payload.diff ?? {}) as DiffLike;
  const ids = (nodes: DiffLike['addedNodes']): string[] => (nodes ?? []).flatMap((node) => (typeof node.id === 'string' ? [node.id] : []));
  const edges = (list: DiffLike['addedEdges']): string[] => (list ?? []).map((edge) => `${String(edge.from)}→${String(edge.to)}`);
  const change: PlanChangeView = {
    reason: event.payload.reason,
    addedNodes: ids(diff.addedNodes),
    removedNodes: ids(diff.removedNodes),
    addedEdges: edges(diff.addedEdges),
    removedEdges: edges(diff.removedEdges),
  };
  const last = view.replans.at(-1);
  if (last === undefined || last.outcome !== undefined) return view;
  return { ...view, replans: [...view.replans.slice(0, -1), { ...last, change }] };
}

function settleRunningNodes(view: RunView): RunView {
  const nodes = new Map(view.nodes);
  for (const [id, node] of nodes) if (node.status === 'running' || node.status === 'ready') nodes.set(id, { ...node, status: 'cancelled', streamingText: null });
  return { ...view, nodes };
}

/** A run that starts again puts every node that did not succeed back to pending. */
function resetUnfinishedNodes(view: RunView): RunView {
  const nodes = new Map(view.nodes);
  for (const [id, node] of nodes) if (node.status !== 'succeeded') nodes.set(id, { ...node, status: 'pending', streamingText: null });
  return { ...view, nodes };
}

interface PlanLike {
  nodes?: { id?: unknown; title?: unknown; kind?: unknown; dependsOn?: unknown }[];
}

function withPlan(view: RunView, plan: unknown): RunView {
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
    });
    order.push(raw.id);
  }
  return { ...view, nodes: next, order };
}

/** A node as the view starts it: pending, nothing spent, titled by its id until a plan names it. */
export function newNodeView(id: string): NodeView {
  return {
    id,
    title: id,
    kind: 'agent',
    dependsOn: [],
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
    streamingText: null,
    result: null,
    error: null,
    lastEventSeq: 0,
  };
}

/** The planner's own session (model calls while planning or replanning): counted in the totals, no node of the plan. */
const PLANNER_SESSION = 'planner';

function updateNode(view: RunView, event: SessionEvent, update: (node: NodeView) => NodeView): RunView {
  if (event.nodeId === null) return view;
  const transition = (NODE_TRANSITION_EVENT_TYPES as readonly string[]).includes(event.type);
  if (event.nodeId === PLANNER_SESSION && !view.nodes.has(PLANNER_SESSION) && !transition) return view;
  const existing = view.nodes.get(event.nodeId);
  // A surface that is not a node of the plan (the planner during a replan) counts in the totals only.
  if (existing === undefined && view.planVersion !== null && !transition) return view;
  const nodes = new Map(view.nodes);
  nodes.set(event.nodeId, { ...update(existing ?? newNodeView(event.nodeId)), lastEventSeq: event.seq });
  const order = existing === undefined ? [...view.order, event.nodeId] : view.order;
  return { ...view, nodes, order };
}

function addUsage(view: RunView, event: SessionEvent<'assistant/message'>): RunView {
  const usage = event.payload.usage ?? ZERO_TOKENS;
  const cost = event.payload.costUsd ?? 0;
  const totals = {
    input: view.totals.input + usage.input,
    output: view.totals.output + usage.output,
    cacheHit: view.totals.cacheHit + usage.cacheHit,
    reasoning: view.totals.reasoning + usage.reasoning,
    costUsd: view.totals.costUsd + cost,
    modelCalls: view.totals.modelCalls + 1,
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
    modelCalls: node.modelCalls + 1,
    streamingText: null,
  }));
}
