import { hostname } from 'node:os';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/database.js';
import { errorMessage } from '../../errors.js';
import { nodeKind } from '../../plan/node-kinds.js';
import { replanDecision } from '../../plan/replan-decision.js';
import type { LintFinding } from '../../plan/lint-finding.js';
import type { Plan, PlanNode } from '../../plan/plan-schema.js';
import { NODE_TRANSITION_EVENT_TYPES } from '../storage/node-event.js';
import { nodeStatesFromEvents } from '../views/node-states.js';
import type { NodeStatus } from '../../scheduler/node-status.js';
import type { NodeTransition } from '../../scheduler/node-transition.js';
import type { Amendment, NodeFailure, ScheduleMode, ScheduleSnapshot } from '../../scheduler/schedule-options.js';
import type { NodeExecution, NodeOutcome } from '../../scheduler/schedulable-node.js';
import { startSchedule, type ScheduleHandle } from '../../scheduler/scheduler.js';
import type { EventLog } from '../../session/event-log.js';
import { followRun, type FollowedStore, type RunFollower } from '../../session/follow-run.js';
import { runLog } from '../../session/run-log.js';
import type { SessionEvent } from '../../session/event-types.js';
import { Session } from '../../session/session.js';
import { applyPlanPatch, missedWorkNode } from './apply-plan-patch.js';
import { executePlanNode, type NodeRuntime } from './execute-plan-node.js';
import type { NodeFiles } from './node-files.js';
import { handoffMessage } from './node-prompt.js';
import { unkeptPromise } from './node-outcome.js';
import { stopEarlierCommands } from './earlier-commands.js';
import { appendNodeTransitions, type NodeTotals } from '../storage/node-projection.js';
import { endRun, type RunEnding } from '../storage/end-run.js';
import { executablePlan, savePlan, setRunStatus } from '../storage/plan-store.js';
import type { PlanLinter } from '../../plan/plan-linter.js';
import type { CompletedNode, Planner, PlanPatch, ReplanTrigger } from '../../plan/planner.js';
import { transitionRun, type RunStatus } from '../storage/run-status.js';
import { getRun } from '../storage/run-store.js';
import { emptyRunView, reduceRunView, type RunView } from '../views/run-view.js';
import { NOT_REPLANNED, UNPLANNED_WORK_EVENT_TYPES, unplannedWork, unplannedWorkError, type UnplannedWork } from '../views/unplanned-work.js';

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
}

export const DEFAULT_RUN_SETTINGS: RunSettings = { mode: 'eager', concurrency: 4, maxAttempts: 2, replanThreshold: 0.5, maxReplans: 3, reviewReplans: false, reviewCommandChanges: true };

export interface ExecuteRunOptions {
  readonly db: Kysely<Database>;
  readonly runId: string;
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
  /**
   * Node attempts run elsewhere (worker processes, engine/dispatch): this process only decides
   * readiness and records transitions; putting a node's files back is then the worker's job.
   */
  readonly remote?: RemoteAttempts;
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
}

export interface NodeResult {
  readonly answer: string;
  readonly filesChanged: readonly string[];
}

export interface RunResult {
  readonly runId: string;
  /** `paused`: a replan waits for review. */
  readonly status: 'succeeded' | 'failed' | 'cancelled' | 'paused';
  readonly planVersion: number;
  readonly nodes: readonly { readonly id: string; readonly status: NodeStatus; readonly attempts: number; readonly error?: string }[];
  readonly replans: number;
  readonly error?: string;
  /** Reports of missed work no plan version took up (the run failed for them; `resume` replans them). */
  readonly unplannedWork?: number;
}

/**
 * Runs a run's approved plan to its end (SPEC §2.4–2.5): durable node transitions, files
 * snapshotted per node, handoffs between nodes through the log, replanning on failures and on
 * missed work. Resumes where an earlier process stopped: succeeded nodes never run again, a node
 * that was running starts over with its files put back. Returns an outcome; throws only when the
 * plan may not run (not approved, changed since approval) or the store fails.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<RunResult> {
  return new RunController(options).execute();
}

class RunController {
  readonly #options: ExecuteRunOptions;
  readonly #settings: RunSettings;
  readonly #db: Kysely<Database>;
  readonly #log: EventLog;
  readonly #runId: string;
  readonly #schedule = new AbortController();
  readonly #completed = new Map<string, CompletedNode>();
  readonly #boundaries = new Map<string, unknown>();
  readonly #amendments = new Set<Promise<unknown>>();
  /** The run's one fold of its usage events (tokens and cost per node for the `nodes` projection), kept current as the log grows. */
  #view: RunView;
  readonly #startedAt = new Map<string, string>();
  #plan!: Plan;
  #planVersion = 0;
  #task = '';
  #workspace = '';
  #replans = 0;
  #paused: string | undefined;
  #handle: ScheduleHandle<NodeResult> | undefined;
  /** The seq of this process's `run/started`: the follower starts after it. */
  #startedSeq = 0;
  /** Cancel requests after this seq are for this run of it (the lease's seq, else `run/started`'s). */
  #cancelAfterSeq = 0;
  /** `work/reported` events already turned into a replan (this process's appends arrive twice when the log is followed). */
  readonly #reportsHeard = new Set<number>();
  /** Reported missed work no plan version took up yet, by the report's seq: the run cannot succeed while one is left. */
  readonly #unplanned = new Map<number, UnplannedWork>();
  #cancelReason: unknown;

  constructor(options: ExecuteRunOptions) {
    this.#options = options;
    this.#settings = { ...DEFAULT_RUN_SETTINGS, ...options.settings };
    this.#db = options.db;
    this.#runId = options.runId;
    this.#log = runLog(options.db, options.runId);
    this.#view = emptyRunView(options.runId);
  }

  async execute(): Promise<RunResult> {
    try {
      return await this.#execute();
    } finally {
      await this.#options.files.close?.();
    }
  }

  async #execute(): Promise<RunResult> {
    const run = await getRun(this.#db, this.#runId);
    const stored = await executablePlan(this.#db, run.id, this.#options.approvedHash === undefined ? {} : { approvedHash: this.#options.approvedHash });
    this.#plan = stored.plan;
    this.#planVersion = stored.version;
    this.#task = run.task;
    this.#workspace = run.workspace;
    const prior = await this.#recoverFromLog();
    await stopEarlierCommands((await this.#log.read({ types: ['command/started'] })) as SessionEvent<'command/started'>[]);
    if (this.#options.remote === undefined) await this.#restoreUnfinishedNodes(prior.statuses);
    await this.#startRun(run.status);
    this.#cancelAfterSeq = this.#options.leaseSeq ?? this.#startedSeq;
    // A cancel request that came between the lease and `run/started` (the follower starts after the latter).
    this.#onControlEvents(await this.#log.read({ types: ['run/cancel-requested'], fromSeq: this.#cancelAfterSeq + 1, toSeq: this.#startedSeq }));

    const cancel = (): void => this.#cancel(this.#options.signal.reason);
    this.#options.signal.addEventListener('abort', cancel, { once: true });
    if (this.#options.signal.aborted) cancel();
    const unsubscribe = this.#log.onAppend((events) => {
      this.#options.onEvents?.(events);
      this.#onAppended(events);
      this.#onControlEvents(events);
    });
    let follower: RunFollower | undefined;
    try {
      if (this.#options.follow !== undefined) {
        const stopFollowing = new AbortController();
        follower = await followRun(this.#options.follow, this.#runId, { afterSeq: this.#startedSeq, signal: stopFollowing.signal, onEvents: (events) => this.#onControlEvents(events) });
      }
      await this.#replanEarlierReports(prior.statuses);
      this.#handle = startSchedule<NodeResult>({
        nodes: this.#plan.nodes,
        mode: this.#settings.mode,
        concurrency: this.#settings.concurrency,
        signal: this.#schedule.signal,
        retry: { maxAttempts: this.#settings.maxAttempts },
        initialStatus: prior.statuses,
        initialAttempts: prior.attempts,
        execute: (nodeId, execution) => this.#attemptNode(nodeId, execution),
        onTransitions: (changes) => this.#persist(changes),
        onNodeFailed: (failure, snapshot, signal) => this.#onNodeFailed(failure, snapshot, signal),
        ...(this.#options.sleep === undefined ? {} : { sleep: this.#options.sleep }),
        ...(this.#options.random === undefined ? {} : { random: this.#options.random }),
      });
      const result = await this.#handle.result;
      while (this.#amendments.size > 0) await Promise.allSettled([...this.#amendments]);
      return await this.#finish(result.status, result.nodes);
    } finally {
      unsubscribe();
      await follower?.stop();
      this.#options.signal.removeEventListener('abort', cancel);
    }
  }

  /** Stops the schedule: running nodes are aborted, the run ends cancelled (once; the first reason is kept). */
  #cancel(reason: unknown): void {
    if (this.#schedule.signal.aborted) return;
    this.#cancelReason = reason;
    this.#schedule.abort(reason);
  }

  /** Node statuses, attempts, handoffs, boundaries, usage and replans from earlier processes of this run: a fold over its log. */
  async #recoverFromLog(): Promise<{ statuses: Map<string, NodeStatus>; attempts: Map<string, number> }> {
    const events = await this.#log.read({ types: RECOVERED_EVENT_TYPES });
    for (const report of unplannedWork(events)) {
      this.#unplanned.set(report.seq, report);
      this.#reportsHeard.add(report.seq);
    }
    const folded = nodeStatesFromEvents(events);
    const statuses = new Map([...folded].map(([id, state]) => [id, state.status]));
    const attempts = new Map([...folded].map(([id, state]) => [id, state.attempts]));
    for (const event of events) {
      if (event.type === 'node/succeeded' && event.nodeId !== null) {
        this.#completed.set(event.nodeId, { nodeId: event.nodeId, result: event.payload.result, filesChanged: event.payload.filesChanged ?? [] });
      } else if (event.type === 'node/snapshotted' && event.nodeId !== null) {
        this.#boundaries.set(event.nodeId, event.payload.boundary);
      } else if (event.type === 'replan/finished' && event.payload.outcome === 'amended') {
        this.#replans += 1;
      } else if (event.type === 'assistant/message') {
        this.#view = reduceRunView(this.#view, event);
      }
    }
    return { statuses, attempts };
  }

  /**
   * Every node that started before and did not succeed (it was running when the process died, or
   * it failed, or was cancelled) starts over from the files it found.
   */
  async #restoreUnfinishedNodes(statuses: ReadonlyMap<string, NodeStatus>): Promise<void> {
    for (const node of this.#plan.nodes) {
      const boundary = this.#boundaries.get(node.id);
      if (boundary === undefined || statuses.get(node.id) === 'succeeded') continue;
      await this.#options.files.restoreNode(node.id, boundary);
    }
  }

  async #startRun(from: RunStatus): Promise<void> {
    const status = transitionRun(from, 'running');
    const started = await this.#log.append(
      {
        type: 'run/started',
        payload: { pid: process.pid, host: hostname(), planVersion: this.#planVersion, ...(this.#options.allowedLint?.length ? { allowedLint: [...this.#options.allowedLint] } : {}) },
      },
      {
        effects: async (transaction) => {
          await setRunStatus(transaction, this.#runId, status, { finished_at: null });
          await this.#ensureNodeRows(transaction, this.#plan.nodes);
        },
      },
    );
    this.#startedSeq = started.seq;
  }

  async #ensureNodeRows(transaction: Transaction<Database>, nodes: readonly PlanNode[]): Promise<void> {
    for (const node of nodes) {
      await transaction
        .insertInto('nodes')
        .values({ run_id: this.#runId, node_id: node.id, plan_version: this.#planVersion, status: 'pending', attempts: 0, started_at: null, finished_at: null, result: null, error: null, input_tokens: 0, output_tokens: 0, cache_hit_tokens: 0, reasoning_tokens: 0, cost_usd: 0 })
        .onConflict((conflict) => conflict.columns(['run_id', 'node_id']).doUpdateSet({ plan_version: this.#planVersion }))
        .execute();
    }
  }

  /** Every transition with its event and the `nodes` row, in one transaction. */
  async #persist(changes: readonly NodeTransition<NodeResult>[]): Promise<void> {
    for (const change of changes) {
      if (change.kind === 'succeeded') this.#completed.set(change.nodeId, { nodeId: change.nodeId, result: change.result.answer, filesChanged: change.result.filesChanged });
    }
    await appendNodeTransitions(this.#log, changes, { planVersion: this.#planVersion, describe: describeResult, totals: (nodeId) => nodeTotals(this.#view, nodeId), started: this.#startedAt });
  }

  /**
   * One attempt: files put back if it ran before, a boundary, a fresh surface, the node itself.
   * The workspace snapshot of a first attempt overlaps the write of its `node/started`; nothing
   * that must survive a crash (restoring files, the log, the node's tools) runs before it is stored.
   */
  async #attemptNode(nodeId: string, execution: NodeExecution): Promise<NodeOutcome<NodeResult>> {
    if (this.#options.remote !== undefined) return this.#options.remote.execute(nodeId, { ...execution, planVersion: this.#planVersion });
    const { attempt, signal, durable } = execution;
    const node = this.#plan.nodes.find((candidate) => candidate.id === nodeId);
    if (node === undefined) return { status: 'failed', error: `node ${nodeId} is not in plan v${this.#planVersion}`, retryable: false };
    const { files } = this.#options;
    const earlier = this.#boundaries.get(nodeId);
    if (earlier !== undefined && attempt > 1) {
      await durable;
      await files.restoreNode(nodeId, earlier);
    }
    const boundary = await files.beginNode(nodeId, node.writes);
    await durable;
    this.#boundaries.set(nodeId, boundary);
    const marker = await this.#log.append({ type: 'node/snapshotted', nodeId, turn: 1, payload: { attempt, boundary } });
    const session = await Session.open(this.#log, nodeId, { fromSeq: marker.seq });
    try {
      // Past `durable`, every dependency's `node/succeeded` has gone through #persist, which fills #completed.
      const handoffs = node.dependsOn.flatMap((id) => {
        const completed = this.#completed.get(id);
        return completed === undefined ? [] : [handoffMessage(this.#plan.nodes.find((candidate) => candidate.id === id), completed)];
      });
      const result = await executePlanNode(this.#options.runtime, {
        runId: this.#runId,
        plan: this.#plan,
        node,
        attempt,
        session,
        handoffs,
        writeScope: files.writeScopeFor(nodeId, node.writes),
        signal,
      });
      const otherWrites = this.#plan.nodes.filter((other) => other.id !== nodeId).flatMap((other) => other.writes);
      const { filesChanged, strayChanges = [] } = await files.endNode(nodeId, node.writes, boundary, { otherWrites });
      if (strayChanges.length > 0) await this.#log.append({ type: 'writes/exceeded', nodeId, payload: { paths: [...strayChanges] } });
      if (result.status === 'failed') return result;
      const unkept = unkeptPromise({ nodeId, kind: node.kind, actions: result.actions ?? [], filesChanged, writes: node.writes });
      if (unkept !== undefined) return { status: 'failed', error: unkept, retryable: false };
      return { status: 'succeeded', result: { answer: result.answer, filesChanged } };
    } finally {
      session.close();
    }
  }

  #onAppended(events: readonly SessionEvent[]): void {
    for (const event of events) if (event.type === 'assistant/message') this.#view = reduceRunView(this.#view, event);
  }

  /** Cancel requests and missed work, from this process's appends and (when followed) other processes'. */
  #onControlEvents(events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (event.type === 'run/cancel-requested' && event.seq > this.#cancelAfterSeq) this.#cancel(new Error(`cancel requested${event.payload.by === undefined ? '' : ` by ${event.payload.by}`}`));
      if (event.type !== 'work/reported' || event.nodeId === null || this.#handle === undefined || this.#reportsHeard.has(event.seq)) continue;
      this.#reportsHeard.add(event.seq);
      const report: UnplannedWork = {
        seq: event.seq,
        trigger: { kind: 'missed-work', nodeId: event.nodeId, title: event.payload.title, files: event.payload.files, reason: event.payload.reason },
        why: NOT_REPLANNED,
      };
      this.#unplanned.set(report.seq, report);
      const amending = this.#handle
        .amend((snapshot, signal) => this.#replanReport(report, snapshot, signal))
        .catch(async (error: unknown) => {
          this.#unplanned.set(report.seq, { ...report, why: errorMessage(error) });
          await this.#log.append({ type: 'replan/finished', payload: { outcome: 'failed', error: errorMessage(error) } }).catch(() => undefined);
        });
      this.#amendments.add(amending);
      void amending.finally(() => this.#amendments.delete(amending));
    }
  }

  async #onNodeFailed(failure: NodeFailure, snapshot: ScheduleSnapshot, signal: AbortSignal): Promise<Amendment | undefined> {
    if (this.#options.planner === undefined) return undefined;
    return (await this.#replan({ kind: 'failure', nodeId: failure.nodeId, error: failure.error }, snapshot, signal)).amendment;
  }

  /** Replans one report of missed work; it stays unplanned, with the reason, unless a plan version takes it up. */
  async #replanReport(report: UnplannedWork, snapshot: ScheduleSnapshot, signal: AbortSignal): Promise<Amendment | undefined> {
    const replanned = await this.#replan(report.trigger, snapshot, signal);
    if (replanned.unplanned === undefined) this.#unplanned.delete(report.seq);
    else this.#unplanned.set(report.seq, { ...report, why: replanned.unplanned });
    return replanned.amendment;
  }

  /**
   * Missed work that an earlier process of this run heard but never planned (the replan failed or
   * gave up, and the run failed for it): replanned before anything is scheduled, as it was then.
   */
  async #replanEarlierReports(statuses: ReadonlyMap<string, NodeStatus>): Promise<void> {
    for (const report of [...this.#unplanned.values()]) {
      if (this.#schedule.signal.aborted) return;
      const snapshot: ScheduleSnapshot = { nodes: this.#plan.nodes, statuses: new Map(this.#plan.nodes.map((node) => [node.id, statuses.get(node.id) ?? 'pending'])) };
      await this.#replanReport(report, snapshot, this.#schedule.signal);
    }
  }

  /**
   * The replanning rules: decide full or append by progress, ask the planner, store the new version.
   * Gives the amendment to apply, or why the trigger was not planned (the limit, the planner's error);
   * neither when the new version waits for review.
   */
  async #replan(trigger: ReplanTrigger, snapshot: ScheduleSnapshot, signal: AbortSignal): Promise<{ amendment?: Amendment; unplanned?: string }> {
    const statuses = snapshot.statuses;
    const succeeded = [...statuses.values()].filter((status) => status === 'succeeded').length;
    const total = snapshot.nodes.length;
    const rule = replanDecision({ succeeded, total, replansSoFar: this.#replans, threshold: this.#settings.replanThreshold, maxReplans: this.#settings.maxReplans });
    // Without a planner nothing can plan in full: missed work still gets its node appended.
    const decision = rule === 'full' && this.#options.planner === undefined ? 'append' : rule;
    const progress = total === 0 ? 0 : succeeded / total;
    if (decision === 'give-up') {
      await this.#log.append({ type: 'replan/started', payload: { trigger: trigger.kind, progress, mode: 'append', nodeId: trigger.nodeId } });
      const reason = `the limit of ${this.#settings.maxReplans} replans is reached`;
      await this.#log.append({ type: 'replan/finished', payload: { outcome: 'gave-up', reason } });
      return { unplanned: reason };
    }
    await this.#log.append({ type: 'replan/started', payload: { trigger: trigger.kind, progress, mode: decision, nodeId: trigger.nodeId } });
    const frozen = new Set([...statuses].filter(([, status]) => status === 'succeeded' || status === 'running').map(([id]) => id));
    const completedIds = new Set([...statuses].filter(([, status]) => status === 'succeeded').map(([id]) => id));
    let next: Plan;
    try {
      const patch = await this.#askPlanner(trigger, decision, signal);
      next = applyPlanPatch(this.#plan, patch, trigger, { frozenNodeIds: frozen, completedNodeIds: completedIds });
    } catch (error) {
      await this.#log.append({ type: 'replan/finished', payload: { outcome: 'failed', error: errorMessage(error) } });
      return { unplanned: `the replan failed: ${errorMessage(error)}` };
    }
    const newCommands = changedCommandNodes(this.#plan, next);
    const lint = await this.#lint(next, signal);
    const lintErrors = lint.filter((finding) => finding.level === 'error');
    const review = this.#settings.reviewReplans || (this.#settings.reviewCommandChanges && newCommands.length > 0) || lintErrors.length > 0;
    const reason = trigger.kind === 'failure' ? `replan (${decision}) after ${trigger.nodeId} failed: ${firstLine(trigger.error)}` : `replan (${decision}): ${trigger.nodeId} reported missed work: ${trigger.title}`;
    const saved = await savePlan(this.#db, this.#runId, { plan: next, reason, status: review ? 'awaiting_approval' : 'approved', runStatus: 'running', log: this.#log, ...(this.#options.linter === undefined ? {} : { lint }) });
    this.#replans += 1;
    await this.#log.append({ type: 'replan/finished', payload: { outcome: 'amended', version: saved.stored.version } });
    if (review) {
      const because = lintErrors.length > 0 ? ` (lint: ${lintErrors.map((finding) => finding.message).join('; ')})` : '';
      this.#paused =
        newCommands.length > 0 && !this.#settings.reviewReplans
          ? `plan v${saved.stored.version} waits for approval: the replan added or changed command nodes (${newCommands.join(', ')}), which the approved plan did not cover`
          : `plan v${saved.stored.version} waits for review after a replan${because}`;
      this.#schedule.abort(new Error(this.#paused));
      return {};
    }
    this.#plan = next;
    this.#planVersion = saved.stored.version;
    await this.#db.transaction().execute((transaction) => this.#ensureNodeRows(transaction, next.nodes));
    return { amendment: { nodes: next.nodes, restart: [] } };
  }

  /** The linter's findings; a linter that fails records nothing rather than failing the run. */
  async #lint(plan: Plan, signal: AbortSignal): Promise<readonly LintFinding[]> {
    if (this.#options.linter === undefined) return [];
    try {
      return await this.#options.linter(plan, signal);
    } catch {
      return [];
    }
  }

  async #askPlanner(trigger: ReplanTrigger, decision: 'full' | 'append', signal: AbortSignal): Promise<PlanPatch> {
    const planner = this.#options.planner;
    if (planner === undefined) {
      if (trigger.kind === 'missed-work') return { kind: 'append', nodes: [missedWorkNode(trigger)] };
      throw new Error('no planner is configured to replan a failed node');
    }
    return planner.amend({
      runId: this.#runId,
      task: this.#task,
      workspace: this.#workspace,
      plan: this.#plan,
      mode: decision,
      trigger,
      completed: [...this.#completed.values()],
      signal,
    });
  }

  async #finish(status: 'succeeded' | 'failed' | 'cancelled', nodes: ReadonlyMap<string, { status: NodeStatus; attempts: number; error?: string }>): Promise<RunResult> {
    const reports = this.#plan.nodes.map((node) => ({ id: node.id, ...nodes.get(node.id) ?? { status: 'pending' as NodeStatus, attempts: 0 } }));
    const failed = reports.find((node) => node.status === 'failed');
    // Every node succeeded, but work a node reported was never planned: the run did not do what it was asked.
    const unplanned = status === 'succeeded' && this.#paused === undefined && this.#unplanned.size > 0 ? unplannedWorkError([...this.#unplanned.values()]) : undefined;
    const error = failed === undefined ? unplanned : `node ${failed.id} failed: ${firstLine(failed.error ?? '')}`;
    const finalStatus: RunResult['status'] = this.#paused !== undefined ? 'paused' : unplanned !== undefined ? 'failed' : status;
    const ending: RunEnding =
      finalStatus === 'succeeded'
        ? { status: 'succeeded', result: `${reports.length} nodes succeeded` }
        : finalStatus === 'failed'
          ? { status: 'failed', error: error ?? 'the run failed' }
          : finalStatus === 'paused'
            ? { status: 'paused', reason: this.#paused ?? 'paused' }
            : { status: 'cancelled', reason: errorMessage(this.#cancelReason ?? this.#options.signal.reason ?? 'cancelled') };
    await endRun(this.#db, this.#runId, ending, this.#log);
    return {
      runId: this.#runId,
      status: finalStatus,
      planVersion: this.#planVersion,
      nodes: reports,
      replans: this.#replans,
      ...(error === undefined ? {} : { error }),
      ...(unplanned === undefined ? {} : { unplannedWork: this.#unplanned.size }),
    };
  }
}

const RECOVERED_EVENT_TYPES = [
  ...NODE_TRANSITION_EVENT_TYPES,
  ...UNPLANNED_WORK_EVENT_TYPES,
  'node/snapshotted',
  'assistant/message',
] as const;

/** A node's tokens and cost as the fold has them, for its `nodes` row. */
function nodeTotals(view: RunView, nodeId: string): NodeTotals | undefined {
  const node = view.nodes.get(nodeId);
  return node === undefined ? undefined : { ...node.tokens, costUsd: node.costUsd };
}

/** Command nodes of `next` that `current` does not have with the same command: what a new approval must cover. */
export function changedCommandNodes(current: Plan, next: Plan): string[] {
  const before = new Map(current.nodes.map((node) => [node.id, node]));
  return next.nodes
    .filter((node) => nodeKind(node.kind).needsCommand || node.command !== undefined)
    .filter((node) => {
      const old = before.get(node.id);
      return old === undefined || old.kind !== node.kind || old.command !== node.command;
    })
    .map((node) => node.id);
}

function describeResult(result: NodeResult): { result: string; filesChanged: readonly string[] } {
  return { result: result.answer, filesChanged: result.filesChanged };
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

