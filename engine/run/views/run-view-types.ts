import type { RunBudget } from '../budget/run-budget.js';
import type { RunStatus } from '../storage/run-status.js';
import type { NodeWorkspaceView } from './node-workspace-view.js';
import type { ReportedWork } from './reported-work.js';
import type { RevertsView } from './reverts-view.js';

/** The shapes of the run view (`run-view.ts` folds them): a run, its nodes, approvals, replans. */

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

/** The node's model gave way to the next one of its list (`model/switched`). */
export interface ModelSwitchView {
  readonly seq: number;
  readonly from: string;
  readonly to: string;
  readonly reason: string;
  readonly error: string;
}

/** Where a node stands with a pause asked of it (`node/pause-requested`, `node/paused`). */
export type NodePause = 'requested' | 'paused';

export interface NodeView {
  readonly id: string;
  readonly title: string;
  readonly kind: string;
  readonly dependsOn: readonly string[];
  /** Its own spending cap from the plan (`budget`), over all its attempts; null: none. */
  readonly budget: RunBudget | null;
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
  /** The model (`provider:model`) of the node's last answer; null before its first. */
  readonly model: string | null;
  /** Small-model routing sent the node to this model (`model/routed`); null: it was not routed. */
  readonly routedTo: string | null;
  /** Each time the node's model gave way to a fallback, in order: the last `to` is the model it runs on. */
  readonly modelSwitches: readonly ModelSwitchView[];
  /**
   * Steering from outside (`dagent pause`): `requested` until the node reaches a step boundary,
   * then `paused` until a resume is asked for; null otherwise.
   */
  readonly pause: NodePause | null;
  /** The text of the model response streaming now (`text/streamed` so far); null between responses. */
  readonly streamingText: string | null;
  readonly result: string | null;
  readonly error: string | null;
  readonly lastEventSeq: number;
  /** Its result was kept from an earlier plan version (`node/reused`): nothing it depends on changed. */
  readonly reused: boolean;
  /** The step its current attempt went on from after its process stopped (`step/resumed`); null when it started from its beginning. */
  readonly resumedFromStep: number | null;
  /** Tokens and cost not paid again: a reused result, or completed steps a resume went on from. */
  readonly saved: TokenTotals;
  readonly savedCostUsd: number;
  /** Its own workspace under `isolation: worktree` (clean, changed, merged, conflict, discarded); null when it has none. */
  readonly workspace: NodeWorkspaceView | null;
}

/** What resume and reuse saved over the whole run. */
export interface SavedWork {
  readonly tokens: TokenTotals;
  readonly costUsd: number;
  /** Model calls not made again. */
  readonly modelCalls: number;
  /** Nodes whose result a new plan version kept. */
  readonly reusedNodes: number;
  /** Node attempts that went on from their last completed step instead of starting over. */
  readonly resumedNodes: number;
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
  readonly saved: SavedWork;
  readonly approvals: readonly PendingApproval[];
  readonly replans: readonly ReplanView[];
  readonly reportedWork: readonly ReportedWork[];
  /** Why a paused run waits (a replan under review, a budget reached). */
  readonly pausedReason: string | null;
  /** The node whose own plan `budget` paused the run (`budget/reached`, scope node); null: none, or the run's budget. */
  readonly pausedAtNodeBudget: string | null;
  /** The call a budget refused since the run last started (`budget/reached`): whose, and its estimate in the crossed measure; null: none. */
  readonly refusedCall: { readonly nodeId: string | null; readonly measure: 'cost' | 'tokens'; readonly estimate: number } | null;
  /** The run's budget as last recorded (`budget/set`); null: none. Spend is `totals`. */
  readonly budget: RunBudget | null;
  readonly cancelRequested: boolean;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly lastSeq: number;
  /** When the last event the view read was written: where a run whose process died stopped. */
  readonly lastEventAt: string | null;
  readonly error: string | null;
  /** The plan version a person rejected last, and why if they said (`reject --reason`); null once a new version is made. */
  readonly rejection: { readonly version: number; readonly reason: string | null } | null;
  /** The run's changes undone now by `dagent revert` (the whole run's, single nodes'). */
  readonly reverts: RevertsView;
}

export const ZERO_TOKENS: TokenTotals = { input: 0, output: 0, cacheHit: 0, reasoning: 0 };

export const NOTHING_SAVED: SavedWork = { tokens: ZERO_TOKENS, costUsd: 0, modelCalls: 0, reusedNodes: 0, resumedNodes: 0 };
