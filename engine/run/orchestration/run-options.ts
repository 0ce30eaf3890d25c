import { DEFAULT_TEAM_LIMITS, type TeamLimits } from '../team/team-limits.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { PlanLinter } from '../../plan/plan-linter.js';
import type { PlanNode } from '../../plan/plan-schema.js';
import type { Planner } from '../../plan/planner.js';
import type { NodeStatus } from '../../scheduler/node-status.js';
import type { ScheduleMode } from '../../scheduler/schedule-options.js';
import type { NodeExecution, NodeOutcome } from '../../scheduler/schedulable-node.js';
import type { FollowedStore } from '../../session/follow-run.js';
import type { EventDraft, SessionEvent } from '../../session/event-types.js';
import type { RunBudget } from '../budget/run-budget.js';
import type { RunRecord } from '../storage/run-store.js';
import type { NodeRuntime } from './execute-plan-node.js';
import type { NodeFiles } from './node-files.js';

export interface RunSettings {
  readonly mode: ScheduleMode;
  readonly concurrency: number;
  /** Attempts per node, the first included. */
  readonly maxAttempts: number;
  /** Below this share of succeeded nodes a replan is a full one. */
  readonly replanThreshold: number;
  readonly maxReplans: number;
  /** Stop for approval after a replan instead of going on. */
  readonly reviewReplans: boolean;
  /**
   * Stop for approval after a replan that adds or changes command nodes: the original approval
   * did not cover those commands. On unless commands run under `auto`.
   */
  readonly reviewCommandChanges: boolean;
  /** An isolated node's merge conflict: a replan appends a node that resolves it, or the run pauses for the user. */
  readonly onConflict: 'replan' | 'pause';
  /** Team mode's bounds on delegated nodes (`team.*`). */
  readonly team: TeamLimits;
}

export const DEFAULT_RUN_SETTINGS: RunSettings = {
  mode: 'eager',
  concurrency: 4,
  maxAttempts: 2,
  replanThreshold: 0.5,
  maxReplans: 3,
  reviewReplans: false,
  reviewCommandChanges: true,
  onConflict: 'replan',
  team: DEFAULT_TEAM_LIMITS,
};

export interface ExecuteRunOptions {
  readonly db: Kysely<Database>;
  readonly runId: string;
  /** The run's row as the command already read it: not read again (a row changed since is refused when the run starts). */
  readonly run?: RunRecord;
  readonly runtime: NodeRuntime;
  readonly files: NodeFiles;
  readonly planner?: Planner;
  /** Lints each replanned version; its findings are recorded with `plan/amended`, and errors stop the run for review. */
  readonly linter?: PlanLinter;
  /** Codes of lint errors the user let through for this run (`run --allow-lint`), recorded in `run/started`. */
  readonly allowedLint?: readonly string[];
  readonly settings?: Partial<RunSettings>;
  readonly signal: AbortSignal;
  /** `--approved HASH`: refuse to start if the plan is not the one approved. */
  readonly approvedHash?: string;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly random?: () => number;
  /** Every event this run appends, as it is committed (progress lines, the live dashboard). */
  readonly onEvents?: (events: readonly SessionEvent[]) => void;
  /** The run among other processes: workers, a `dagent cancel` elsewhere, the lease this process holds. */
  readonly fleet?: RunFleet;
  /**
   * After a plan edit, keep the result of a node whose inputs (specification, model, dependencies'
   * results, files read) are unchanged instead of running it again. Default true; `--no-reuse`: false.
   */
  readonly reuse?: boolean;
  /**
   * The run's budget from this start on (`run --max-cost`, the config's, the one recorded before),
   * recorded as `budget/set` unless it is the recorded one. Node budgets come from the plan.
   */
  readonly budget?: { readonly caps: RunBudget; readonly source: 'flags' | 'config' | 'recorded' };
  /**
   * The work a node stands for when more nodes are ready than slots are free (the costliest chain
   * of work starts first): `dagent run` gives the tokens its review estimates from the files a
   * node covers. `undefined` for a node it cannot weigh (a command, a node a replan added or
   * changed): that node weighs its planned cost (`plannedCost`: its `estimate`, else its kind's).
   */
  readonly nodeCost?: (node: PlanNode) => number | undefined;
}

/** What other processes do to a run: only a run shared with them (workers, the lease, another host) needs it. */
export interface RunFleet {
  /**
   * Node attempts run elsewhere (worker processes, engine/dispatch): this process only decides
   * readiness and records transitions; putting a node's files back is then the worker's job.
   */
  readonly remote?: RemoteAttempts;
  /**
   * The remote attempts' workers share this process's working copy (not clones of their own):
   * their nodes' results are keyed as they succeed (`node/keyed`), and after a plan edit a node
   * put back to check is kept or reverted here before it is dispatched, as in process.
   */
  readonly remoteSharesFiles?: boolean;
  /**
   * Follow the run's log as other processes append to it too (worker processes, `dagent cancel`
   * on another host): missed work a worker reports is replanned as if reported here, and a
   * `run/cancel-requested` from anywhere cancels the run.
   */
  readonly follow?: FollowedStore;
  /**
   * The run log's last seq when this process took the run's lease (`RunLease.seenSeq`): a cancel
   * request appended after it stops this run, also one that comes before this process's
   * `run/started`. Without it, only requests after `run/started` do.
   */
  readonly leaseSeq?: number;
}

/** Runs node attempts outside this process and returns their outcomes. */
export interface RemoteAttempts {
  execute(nodeId: string, execution: NodeExecution & { readonly planVersion: number }): Promise<NodeOutcome<NodeResult>>;
  /**
   * What a remote node reported on the way (`work/reported`, `budget/reached`), handed to
   * `listener` before the outcome of that node: its run hears a worker's report of missed work
   * before the node's success is recorded, as it does a report made in its own process. Returns
   * the function that stops it.
   */
  onReports?(listener: (events: readonly SessionEvent[]) => void): () => void;
}

export interface NodeResult {
  readonly answer: string;
  readonly filesChanged: readonly string[];
  /** What the result depends on (reuse on): stored with the node's `node/succeeded`, in the same append, just before it. */
  readonly keyed?: EventDraft<'node/keyed'>;
}

/** A node's line in a run's outcome. */
export interface NodeReportLine {
  readonly id: string;
  readonly status: NodeStatus;
  readonly attempts: number;
  readonly error?: string;
}

/** Why a run stopped unfinished: `review`, a replanned version waits for approval; `budget`, a budget is reached; `conflict`, a merge conflict waits for the user. */
export interface RunPause {
  readonly cause: 'review' | 'budget' | 'conflict';
  readonly reason: string;
  /** A budget pause: the node whose own plan `budget` was reached (absent: the run's budget). */
  readonly nodeId?: string;
}

export interface RunResult {
  readonly runId: string;
  /** `paused`: a replan waits for review, or a budget is reached (`pause` says which). */
  readonly status: 'succeeded' | 'failed' | 'cancelled' | 'paused';
  readonly pause?: RunPause;
  readonly planVersion: number;
  readonly nodes: readonly NodeReportLine[];
  readonly replans: number;
  readonly error?: string;
  /** Reports of missed work no plan version took up (the run failed for them; `resume` replans them). */
  readonly unplannedWork?: number;
  /** Paused for something other than a review: why, and how to go on, in one line. */
  readonly pausedFor?: string;
}
