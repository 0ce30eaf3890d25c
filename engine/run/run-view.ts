import { NODE_TRANSITION_EVENT_TYPES } from './node-event.js';
import type { SessionEvent } from '../session/event-types.js';
import type { RunStatus } from './run-status.js';

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
  readonly compactions: readonly CompactionView[];
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
}

export interface ReplanView {
  readonly seq: number;
  readonly trigger: string;
  readonly mode: string;
  readonly outcome?: string;
  readonly version?: number;
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
  'request/context',
  'compaction/start',
  'compaction/end',
  'approval/requested',
  'approval/granted',
  'approval/denied',
  'replan/started',
  'replan/finished',
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
      return { ...resetUnfinishedNodes(view), status: 'running', startedAt: view.startedAt ?? event.createdAt, finishedAt: null, error: null };
    case 'run/paused':
      return { ...view, status: 'awaiting_approval' };
    case 'run/succeeded':
      return { ...view, status: 'succeeded', finishedAt: event.createdAt };
    case 'run/failed':
      return { ...view, status: 'failed', finishedAt: event.createdAt, error: event.payload.error };
    case 'run/cancelled':
      return { ...settleRunningNodes(view), status: 'cancelled', finishedAt: event.createdAt };
    case 'plan/created':
    case 'plan/amended':
      return withPlan(
        { ...view, planVersion: event.payload.version, planHash: event.payload.hash, status: view.status === 'running' ? 'running' : 'awaiting_approval' },
        event.payload.plan,
      );
    case 'plan/approved':
      return { ...view, status: view.status === 'running' ? view.status : 'approved', planHash: event.payload.hash };
    case 'plan/rejected':
      return { ...view, status: 'rejected' };
    case 'node/ready':
      return updateNode(view, event, (node) => ({ ...node, status: 'ready' }));
    case 'node/started':
      return updateNode(view, event, (node) => ({ ...node, status: 'running', attempts: event.payload.attempt, startedAt: event.createdAt, finishedAt: null, error: null }));
    case 'node/succeeded':
      return updateNode(view, event, (node) => ({ ...node, status: 'succeeded', finishedAt: event.createdAt, result: event.payload.result }));
    case 'node/failed':
      return updateNode(view, event, (node) => ({ ...node, status: 'failed', finishedAt: event.createdAt, error: event.payload.error }));
    case 'node/skipped':
      return updateNode(view, event, (node) => ({ ...node, status: 'skipped', error: event.payload.reason }));
    case 'node/cancelled':
      return updateNode(view, event, (node) => ({ ...node, status: 'cancelled', finishedAt: event.createdAt }));
    case 'node/retried':
      return updateNode(view, event, (node) => ({ ...node, status: 'ready', error: event.payload.error }));
    case 'assistant/message':
      return addUsage(view, event);
    case 'request/context':
      return updateNode(view, event, (node) => ({ ...node, contextTokens: event.payload.estimatedTokens }));
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
          { seq: event.seq, nodeId: event.nodeId, toolCallId: event.payload.toolCallId, tool: event.payload.tool, args: event.payload.args },
        ],
      };
    case 'approval/granted':
    case 'approval/denied':
      return { ...view, approvals: view.approvals.filter((approval) => approval.toolCallId !== event.payload.toolCallId) };
    case 'replan/started':
      return { ...view, replans: [...view.replans, { seq: event.seq, trigger: event.payload.trigger, mode: event.payload.mode }] };
    case 'replan/finished': {
      const replans = [...view.replans];
      const last = replans.pop();
      if (last === undefined) return view;
      return { ...view, replans: [...replans, { ...last, outcome: event.payload.outcome, ...(event.payload.outcome === 'amended' ? { version: event.payload.version } : {}) }] };
    }
    default:
      return view;
  }
}

/** A cancelled run leaves no node running: whatever was running or ready is cancelled with it. */
function settleRunningNodes(view: RunView): RunView {
  const nodes = new Map(view.nodes);
  for (const [id, node] of nodes) if (node.status === 'running' || node.status === 'ready') nodes.set(id, { ...node, status: 'cancelled' });
  return { ...view, nodes };
}

/** A run that starts again puts every node that did not succeed back to pending. */
function resetUnfinishedNodes(view: RunView): RunView {
  const nodes = new Map(view.nodes);
  for (const [id, node] of nodes) if (node.status !== 'succeeded') nodes.set(id, { ...node, status: 'pending' });
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
    const base = previous ?? newNode(raw.id);
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

function newNode(id: string): NodeView {
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
    compactions: [],
    result: null,
    error: null,
    lastEventSeq: 0,
  };
}

function updateNode(view: RunView, event: SessionEvent, update: (node: NodeView) => NodeView): RunView {
  if (event.nodeId === null) return view;
  const existing = view.nodes.get(event.nodeId);
  const nodes = new Map(view.nodes);
  nodes.set(event.nodeId, { ...update(existing ?? newNode(event.nodeId)), lastEventSeq: event.seq });
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
  }));
}
