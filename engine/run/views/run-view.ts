import { NODE_TRANSITION_EVENT_TYPES } from '../storage/node-event.js';
import type { SessionEvent } from '../../session/event-types.js';
import { NODE_WORKSPACE_EVENT_TYPES, reduceNodeWorkspace } from './node-workspace-view.js';
import { addUsage, reduceNodeTransition, resetUnfinishedNodes, settleRunningNodes, updateNode, withPlan } from './node-view.js';
import { reportedWork } from './reported-work.js';
import { NOTHING_SAVED, ZERO_TOKENS, type PlanChangeView, type RunView } from './run-view-types.js';
import { NO_REVERTS, REVERT_EVENT_TYPES, reduceReverts } from './reverts-view.js';
import { reduceSavedWork } from './saved-work.js';

/**
 * The state of a run as `dagent status` and the dashboard show it: a pure fold over the run's
 * events. Both read it through `reduceRunView`, so a dashboard bug reproduces in `status`.
 */
export type { CompactionView, NodePause, NodeView, NodeViewStatus, PendingApproval, PlanChangeView, ReplanView, RunView, SavedWork, TokenTotals } from './run-view-types.js';
export type { ReportedWork } from './reported-work.js';
export { NODE_WORKSPACE_FOLD_TYPES, foldNodeWorkspace, nodeWorkspaceLabel, nodeWorkspaceLine, shortCommit, type NodeWorkspaceState, type NodeWorkspaceView } from './node-workspace-view.js';
export { newNodeView, reduceNodeTransition } from './node-view.js';
export { REVERTS_FOLD_TYPES, foldReverts, isNodeReverted, nodeRevertedLabel, revertedState, revertedStateLabel, type RevertRecord, type RevertedState, type RevertsView } from './reverts-view.js';

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
    saved: NOTHING_SAVED,
    approvals: [],
    replans: [],
    reportedWork: [],
    pausedReason: null,
    pausedAtNodeBudget: null,
    refusedCall: null,
    budget: null,
    cancelRequested: false,
    startedAt: null,
    finishedAt: null,
    lastSeq: 0,
    lastEventAt: null,
    error: null,
    rejection: null,
    reverts: NO_REVERTS,
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
  'budget/set',
  'budget/reached',
  'plan/created',
  'plan/approved',
  'plan/rejected',
  'plan/amended',
  ...NODE_TRANSITION_EVENT_TYPES,
  'assistant/message',
  'compaction/summary',
  'text/streamed',
  'model/retried',
  'model/switched',
  'model/routed',
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
  'node/reused',
  'step/resumed',
  'node/pause-requested',
  'node/paused',
  'node/resume-requested',
  ...NODE_WORKSPACE_EVENT_TYPES,
  ...REVERT_EVENT_TYPES,
] as const;

export function reduceRunView(view: RunView, event: SessionEvent): RunView {
  const reduced = reduceEvent(view, event);
  const reverts = reduceReverts(reduced.reverts, event);
  const next = reverts === reduced.reverts ? reduced : { ...reduced, reverts };
  const lastEventAt = next.lastEventAt === null || event.createdAt > next.lastEventAt ? event.createdAt : next.lastEventAt;
  return { ...next, lastSeq: Math.max(next.lastSeq, event.seq), lastEventAt };
}

export function foldRunView(runId: string, events: readonly SessionEvent[]): RunView {
  let view = emptyRunView(runId);
  for (const event of events) view = reduceRunView(view, event);
  return view;
}

function reduceEvent(view: RunView, event: SessionEvent): RunView {
  switch (event.type) {
    case 'node/ready':
    case 'node/started':
    case 'node/succeeded':
    case 'node/failed':
    case 'node/skipped':
    case 'node/cancelled':
    case 'node/retried':
    case 'node/reset':
      return updateNode(view, event, (node) => ({ ...reduceNodeTransition(node, event), workspace: reduceNodeWorkspace(node.workspace, event) }));
    case 'node/snapshotted':
    case 'step/checkpointed':
    case 'node/merged':
    case 'node/conflicted':
    case 'workspace/discarded':
      return updateNode(view, event, (node) => ({ ...node, workspace: reduceNodeWorkspace(node.workspace, event) }));
    case 'node/reused':
    case 'step/resumed':
      return reduceSavedWork(view, event);
    case 'assistant/message':
    case 'compaction/summary':
      return addUsage(view, event);
    case 'text/streamed':
    case 'model/retried':
    case 'model/switched':
    case 'request/context':
    case 'compaction/start':
    case 'compaction/end':
      return reduceNodeProgress(view, event);
    case 'approval/requested':
    case 'approval/granted':
    case 'approval/denied':
    case 'replan/started':
    case 'replan/finished':
      return reduceApprovalsAndReplans(view, event);
    case 'node/pause-requested':
      return updateNode(view, event, (node) => ({ ...node, pause: node.pause ?? 'requested' }));
    case 'node/paused':
      return updateNode(view, event, (node) => ({ ...node, pause: node.pause === null ? null : 'paused' }));
    case 'node/resume-requested':
      return updateNode(view, event, (node) => ({ ...node, pause: null }));
    case 'model/routed':
      return updateNode(view, event, (node) => ({ ...node, routedTo: event.payload.model }));
    default:
      return reduceRunEvent(view, event);
  }
}

/** The run's own events: its status, its task, its plan versions, cancel requests and reported work. */
function reduceRunEvent(view: RunView, event: SessionEvent): RunView {
  switch (event.type) {
    case 'run/created':
      return { ...view, task: event.payload.task };
    case 'run/started':
      return { ...resetUnfinishedNodes(view), status: 'running', startedAt: view.startedAt ?? event.createdAt, finishedAt: null, error: null, pausedReason: null, pausedAtNodeBudget: null, refusedCall: null, cancelRequested: false };
    case 'run/paused':
      return { ...view, status: event.payload.cause === 'budget' ? 'paused' : 'awaiting_approval', pausedReason: event.payload.reason };
    case 'budget/set': {
      const { source: _source, ...caps } = event.payload;
      return { ...view, budget: caps };
    }
    case 'budget/reached': {
      // The first refusal stops the run; a worker's later one changes nothing.
      if (view.refusedCall !== null) return view;
      const { scope, measure, estimate } = event.payload;
      return { ...view, pausedAtNodeBudget: scope === 'node' ? event.nodeId : null, refusedCall: { nodeId: event.nodeId, measure, estimate } };
    }
    case 'run/cancel-requested':
      return { ...view, cancelRequested: true };
    case 'work/reported':
      return { ...view, reportedWork: [...view.reportedWork, reportedWork(event)] };
    case 'run/succeeded':
      return { ...view, status: 'succeeded', finishedAt: event.createdAt };
    case 'run/failed':
      return { ...view, status: 'failed', finishedAt: event.createdAt, error: event.payload.error };
    case 'run/cancelled':
      return { ...settleRunningNodes(view), status: 'cancelled', finishedAt: event.createdAt };
    case 'plan/created':
      return withPlan({ ...view, planVersion: event.payload.version, planHash: event.payload.hash, status: view.status === 'running' ? 'running' : 'awaiting_approval', rejection: null }, event.payload.plan);
    case 'plan/amended':
      return withPlan(
        withPlanChange({ ...view, planVersion: event.payload.version, planHash: event.payload.hash, status: view.status === 'running' ? 'running' : 'awaiting_approval', rejection: null }, event),
        event.payload.plan,
      );
    case 'plan/approved':
      return { ...view, status: view.status === 'running' ? view.status : 'approved', planHash: event.payload.hash };
    case 'plan/rejected':
      return { ...view, status: 'rejected', rejection: { version: event.payload.version, reason: event.payload.reason ?? null } };
    default:
      return view;
  }
}

/** What a running node shows between its transitions: streamed text, context fill, compactions. */
function reduceNodeProgress(view: RunView, event: SessionEvent): RunView {
  switch (event.type) {
    case 'text/streamed':
      return updateNode(view, event, (node) => ({ ...node, streamingText: (node.streamingText ?? '') + event.payload.text }));
    case 'model/retried':
      // The failed attempt's text is dropped; the retried call streams from its beginning.
      return updateNode(view, event, (node) => ({ ...node, streamingText: null }));
    case 'model/switched': {
      const { from, to, reason, error } = event.payload;
      return updateNode(view, event, (node) => ({ ...node, streamingText: null, modelSwitches: [...node.modelSwitches, { seq: event.seq, from, to, reason, error }] }));
    }
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
    default:
      return view;
  }
}

/** Approvals waiting for an answer, and the replans with their outcomes. */
function reduceApprovalsAndReplans(view: RunView, event: SessionEvent): RunView {
  switch (event.type) {
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
