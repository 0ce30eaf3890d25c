import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { errorMessage } from '../../errors.js';
import type { Plan, PlanNode } from '../../plan/plan-schema.js';
import { plannedCost } from '../../plan/critical-path.js';
import type { PlanPatch, ReplanTrigger } from '../../plan/planner.js';
import type { NodeStatus } from '../../scheduler/node-status.js';
import type { Amendment, NodeFailure, ScheduleSnapshot } from '../../scheduler/schedule-options.js';
import type { NodeExecution, NodeOutcome } from '../../scheduler/schedulable-node.js';
import { startSchedule, type ScheduleHandle } from '../../scheduler/scheduler.js';
import type { EventLog } from '../../session/event-log.js';
import { followRun, type RunFollower } from '../../session/follow-run.js';
import { runLog } from '../../session/run-log.js';
import type { SessionEvent } from '../../session/event-types.js';
import { createWriteSet } from '../../snapshots/file-write-set.js';
import { BudgetGate } from '../budget/budget-gate.js';
import { budgetPause, hasCaps } from '../budget/run-budget.js';
import { endRun } from '../storage/end-run.js';
import { runEndHooks } from './node-hooks.js';
import { ensureNodeRows } from '../storage/node-projection.js';
import { executablePlan, runStartEffects, savePlan } from '../storage/plan-store.js';
import { transitionRun } from '../storage/run-status.js';
import { getRun, type RunRecord } from '../storage/run-store.js';
import { RECOVERED_EVENT_TYPES, RunMemory, recoverRun, type RecoveredRun } from '../views/run-recovery.js';
import { unplannedReport, type UnplannedWork } from '../views/unplanned-work.js';
import { applyPlanPatch, missedWorkNode } from './apply-plan-patch.js';
import { stopEarlierCommands } from './earlier-commands.js';
import { conflictPauseLine, conflictReplanError, conflictResolutionNode, noteConflicts, type NodeConflict } from './merge-conflict-replan.js';
import { attemptNode } from './node-attempt.js';
import { prepareNodes } from './prepare-nodes.js';
import { resumableAttempt } from './step-resume.js';
import { attemptRemote, nodesToRecheck, type ReuseSettings } from './node-reuse.js';
import { changedCommandNodes, replanVerdict, reviewAfterReplan } from './replan-verdict.js';
import { DEFAULT_RUN_SETTINGS, type ExecuteRunOptions, type NodeResult, type RunPause, type RunResult, type RunSettings } from './run-options.js';
import { runOutcome } from './run-outcome.js';
import { planLintFindings } from '../../plan/plan-lint-findings.js';
import { Delegations } from '../team/delegations.js';
import { TransitionStore } from './transition-store.js';
import { onAbort } from './on-abort.js';

/**
 * Runs a run's approved plan to its end (SPEC §2.4–2.5): durable node transitions, files
 * snapshotted per node, handoffs between nodes through the log, replanning on failures and on
 * missed work. Resumes where an earlier process stopped: succeeded nodes never run again, a node
 * stopped while it ran (killed, cancelled, paused) goes on from its last completed step or starts
 * over, its files put back. Returns an outcome; throws only when the plan may not run or the store fails.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<RunResult> {
  return new RunController(options).execute();
}

/**
 * One process's run of a run, read top to bottom in `#execute`: take the plan, recover from the log,
 * start, schedule (the loop commits its own transitions to a `TransitionStore`), replan when the
 * loop asks, end. The pure rules live beside it: `recoverRun`, `replanVerdict`, `reviewAfterReplan`,
 * `runOutcome`; one node's attempt is `attemptNode`.
 */
class RunController {
  readonly #options: ExecuteRunOptions;
  readonly #settings: RunSettings;
  readonly #db: Kysely<Database>;
  readonly #log: EventLog;
  readonly #runId: string;
  readonly #schedule = new AbortController();
  readonly #amendments = new Set<Promise<unknown>>();
  /** Handoffs, boundaries and replans: recovered from the log, then kept current by every append. */
  #memory = new RunMemory();
  #run!: RunRecord;
  #plan!: Plan;
  #planVersion = 0;
  #transitions: TransitionStore | undefined;
  #paused: RunPause | undefined;
  /** Each node's merge conflict from its last attempt (`node/conflicted`), until it starts again. */
  readonly #conflicts = new Map<string, NodeConflict>();
  /** The run's budget and its nodes', asked before every model call a node makes in this process. */
  #gate: BudgetGate | undefined;
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
  /** Nodes a plan edit put back to pending, checked for reuse when they would run. */
  #reuse: ReuseSettings = { enabled: true, recheck: new Set() };

  constructor(options: ExecuteRunOptions) {
    this.#options = options;
    this.#settings = { ...DEFAULT_RUN_SETTINGS, ...options.settings };
    this.#db = options.db;
    this.#runId = options.runId;
    this.#log = runLog(options.db, options.runId);
  }

  async execute(): Promise<RunResult> {
    try {
      return await this.#execute();
    } finally {
      await this.#options.files.close?.();
    }
  }

  async #execute(): Promise<RunResult> {
    this.#run = this.#options.run ?? (await getRun(this.#db, this.#runId));
    const stored = await executablePlan(this.#db, this.#run, this.#options.approvedHash === undefined ? {} : { approvedHash: this.#options.approvedHash });
    ({ plan: this.#plan, version: this.#planVersion } = stored);
    const recovered = await this.#recover();
    // A remote fleet's workers prepare their own nodes: only the prompts they will send are recorded here.
    await prepareNodes(this.#options.runtime, this.#plan, this.#options.files, this.#settings.concurrency, this.#log, this.#options.fleet?.remote !== undefined);
    await this.#startRun();
    this.#gate = new BudgetGate({
      log: this.#log,
      budget: this.#options.budget?.caps,
      nodeBudget: (nodeId) => this.#plan.nodes.find((node) => node.id === nodeId)?.budget,
      onReached: (reason, nodeId) => this.#pause({ cause: 'budget', reason, ...(nodeId === undefined ? {} : { nodeId }) }),
    });
    const stopListening = onAbort(this.#options.signal, () => this.#cancel(this.#options.signal.reason));
    const transitions = new TransitionStore(this.#log, this.#planVersion, recovered.usage);
    this.#transitions = transitions;
    const team = new Delegations({ db: this.#db, log: this.#log, runId: this.#runId, limits: this.#settings.team, rules: this.#options.files.planRules, ...(this.#options.linter === undefined ? {} : { linter: this.#options.linter }), defaultTools: (kind) => this.#options.runtime.defaultTools(kind), plan: () => this.#plan, adopt: (plan, version) => this.#adopt(plan, version) });
    const unsubscribe = this.#log.onAppend((events) => {
      this.#options.onEvents?.(events);
      this.#memory.add(events);
      noteConflicts(this.#conflicts, events);
      this.#onControlEvents(events);
      for (const event of events) team.hear(event, this.#handle, this.#amendments);
    });
    let follower: RunFollower | undefined;
    const stopHearingReports = this.#options.fleet?.remote?.onReports?.((events) => this.#onControlEvents(events));
    try {
      follower = await this.#follow();
      await this.#replanEarlierReports(recovered);
      const recheck = await this.#recheckAfterEdit(recovered);
      this.#handle = startSchedule<NodeResult>({
        nodes: this.#plan.nodes,
        mode: this.#settings.mode,
        concurrency: this.#settings.concurrency,
        costOf: (node) => this.#options.nodeCost?.(node as PlanNode) ?? plannedCost(node as PlanNode), // the plan's nodes, in every amendment too
        lockWrites: this.#options.files.planRules?.parallelWrites !== 'merge',
        signal: this.#schedule.signal,
        retry: { maxAttempts: this.#settings.maxAttempts },
        initialStatus: new Map([...recovered.nodes].map(([id, state]) => [id, recheck.has(id) ? 'pending' : state.status])),
        initialAttempts: new Map([...recovered.nodes].map(([id, state]) => [id, state.attempts])),
        execute: (nodeId, execution) => this.#attempt(nodeId, execution),
        onTransitions: transitions.commit,
        onNodeFailed: (failure, snapshot, signal) => this.#onNodeFailed(failure, snapshot, signal),
        ...(this.#options.sleep === undefined ? {} : { sleep: this.#options.sleep }),
        ...(this.#options.random === undefined ? {} : { random: this.#options.random }),
      });
      const result = await this.#handle.result;
      while (this.#amendments.size > 0) await Promise.allSettled([...this.#amendments]);
      return await this.#finish(result.status, result.nodes);
    } finally {
      stopHearingReports?.();
      unsubscribe();
      transitions.close();
      await follower?.stop();
      stopListening();
    }
  }

  /** What earlier processes left (one fold of the log), their commands stopped, every started, unsucceeded node put back to the files it found. */
  async #recover(): Promise<RecoveredRun> {
    const recovered = recoverRun(this.#runId, await this.#log.read({ types: RECOVERED_EVENT_TYPES }));
    this.#memory = recovered.memory;
    for (const report of recovered.unplanned) {
      this.#reportsHeard.add(report.seq);
      if (this.#plannedAlready(report)) continue;
      this.#unplanned.set(report.seq, report);
    }
    await stopEarlierCommands((await this.#log.read({ types: ['command/started'] })) as SessionEvent<'command/started'>[]);
    if (this.#options.fleet?.remote !== undefined) return recovered;
    for (const node of this.#plan.nodes) {
      const boundary = this.#memory.boundaries.get(node.id);
      if (boundary === undefined || recovered.nodes.get(node.id)?.status === 'succeeded') continue;
      // A node that goes on from its last completed step puts its files back to that step itself.
      if (resumableAttempt(this.#options.files, node, this.#memory.attemptToGoOn(node.id, this.#planVersion)) !== undefined) continue;
      await this.#options.files.restoreNode(node.id, boundary);
    }
    return recovered;
  }

  /**
   * After a plan edit: the succeeded nodes whose inputs changed, and the nodes after them, go back
   * to pending (`node/reset`); each is kept or run again when it would run (`reuseOrRevert`).
   * Remote attempts in workers' own clones are not keyed, so nothing is rechecked for them.
   */
  async #recheckAfterEdit(recovered: RecoveredRun): Promise<ReadonlySet<string>> {
    this.#reuse = { enabled: this.#options.reuse ?? true, recheck: new Set() };
    if (this.#options.fleet?.remote !== undefined && this.#options.fleet.remoteSharesFiles !== true) return this.#reuse.recheck;
    const context = { plan: this.#plan, planVersion: this.#planVersion, runtime: this.#options.runtime, files: this.#options.files, memory: this.#memory, log: this.#log };
    const statuses = new Map([...recovered.nodes].map(([id, state]) => [id, state.status]));
    const recheck = await nodesToRecheck(context, statuses);
    if (recheck.size === 0) return this.#reuse.recheck;
    const payload = (reason: string) => ({ cause: 'plan-changed' as const, planVersion: this.#planVersion, reason: `plan v${this.#planVersion}: ${reason}`, reverted: false });
    await this.#log.appendMany([...recheck].map(([nodeId, reason]) => ({ type: 'node/reset' as const, nodeId, payload: payload(reason) })));
    for (const id of recheck.keys()) this.#reuse.recheck.add(id);
    return this.#reuse.recheck;
  }

  /** `run/started` with the run's status and its node rows, refused if the run changed since its row was read. */
  async #startRun(): Promise<void> {
    const from = this.#run.status;
    const status = transitionRun(from, 'running');
    const allowedLint = this.#options.allowedLint?.length ? { allowedLint: [...this.#options.allowedLint] } : {};
    const budget = this.#options.budget;
    // Workers read the run's budget from the log: the latest `budget/set` holds.
    if (budget !== undefined && budget.source !== 'recorded' && hasCaps(budget.caps)) await this.#log.append({ type: 'budget/set', payload: { ...budget.caps, source: budget.source } });
    const started = await this.#log.append(
      { type: 'run/started', payload: { pid: process.pid, host: hostname(), planVersion: this.#planVersion, ...allowedLint } },
      { effects: runStartEffects(this.#runId, status, from, this.#planVersion, this.#plan.nodes) },
    );
    this.#startedSeq = started.seq;
    this.#cancelAfterSeq = this.#options.fleet?.leaseSeq ?? this.#startedSeq;
    // A cancel request that came between a worker fleet's lease and `run/started` (the follower
    // starts after the latter); a run without a lease has no such gap to read.
    if (this.#cancelAfterSeq < this.#startedSeq) this.#onControlEvents(await this.#log.read({ types: ['run/cancel-requested'], fromSeq: this.#cancelAfterSeq + 1, toSeq: this.#startedSeq }));
  }

  /** Other processes' appends (workers' reports, a cancel from another host), when the run is shared. */
  async #follow(): Promise<RunFollower | undefined> {
    const followed = this.#options.fleet?.follow;
    if (followed === undefined) return undefined;
    // Only what `#onControlEvents` looks at: not every event the workers append.
    return followRun(followed, this.#runId, { afterSeq: this.#startedSeq, types: ['run/cancel-requested', 'budget/reached', 'work/reported'], signal: new AbortController().signal, onEvents: (events) => this.#onControlEvents(events) });
  }

  /** Stops the schedule: running nodes are aborted, the run ends cancelled (once; the first reason is kept). */
  #cancel(reason: unknown): void {
    if (this.#schedule.signal.aborted) return;
    this.#cancelReason = reason;
    this.#schedule.abort(reason);
  }

  /** Stops the schedule for a pause (review or budget): running nodes are aborted, the run ends paused (the first reason is kept). */
  #pause(pause: RunPause): void {
    if (this.#paused !== undefined) return;
    this.#paused = pause;
    this.#schedule.abort(new Error(pause.reason));
  }

  #attempt(nodeId: string, execution: NodeExecution): Promise<NodeOutcome<NodeResult>> {
    const { runtime, files } = this.#options;
    const remote = this.#options.fleet?.remote;
    if (remote !== undefined) return attemptRemote(remote, { plan: this.#plan, planVersion: this.#planVersion, runtime, files, memory: this.#memory, log: this.#log }, this.#reuse, nodeId, execution);
    const { onConflict } = this.#settings;
    const gated = this.#gate === undefined ? runtime : { ...runtime, gate: this.#gate };
    const context = { runId: this.#runId, log: this.#log, runtime: gated, files, memory: this.#memory, plan: () => this.#plan, planVersion: () => this.#planVersion, reuse: this.#reuse, onConflict };
    return attemptNode(context, nodeId, execution);
  }

  /** Cancel requests and missed work, from this process's appends, other processes' (when followed), and workers' reports with their nodes' outcomes, before those are recorded. */
  #onControlEvents(events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (event.type === 'run/cancel-requested' && event.seq > this.#cancelAfterSeq) this.#cancel(new Error(`cancel requested${event.payload.by === undefined ? '' : ` by ${event.payload.by}`}`));
      // A worker's node refused a call at the budget: the whole run pauses.
      if (event.type === 'budget/reached' && event.seq > this.#startedSeq) this.#pause(budgetPause(event));
      if (event.type !== 'work/reported' || this.#handle === undefined || this.#reportsHeard.has(event.seq)) continue;
      const report = unplannedReport(event);
      if (report === undefined) continue;
      this.#reportsHeard.add(event.seq);
      if (this.#plannedAlready(report)) continue;
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

  /** A report whose files other nodes of the plan already write (a node run again reports what a replan took up before). */
  #plannedAlready(report: UnplannedWork): boolean {
    const writes = createWriteSet(this.#plan.nodes.filter((node) => node.id !== report.trigger.nodeId).flatMap((node) => node.writes));
    return report.trigger.files.every((file) => writes.covers(file));
  }

  async #onNodeFailed(failure: NodeFailure, snapshot: ScheduleSnapshot, signal: AbortSignal): Promise<Amendment | undefined> {
    // A node stopped by a budget (here, or on a worker whose refusal the follower has not brought yet) is no failure to replan.
    if (this.#paused === undefined) this.#onControlEvents(await this.#log.read({ types: ['budget/reached'], fromSeq: this.#startedSeq + 1 }));
    if (this.#paused !== undefined) return undefined;
    const conflict = this.#conflicts.get(failure.nodeId);
    if (conflict !== undefined) return this.#onConflict(failure.nodeId, conflict, snapshot, signal);
    if (this.#options.planner === undefined) return undefined;
    const waitsFor = failure.waitsFor === undefined ? {} : { waitsFor: failure.waitsFor };
    return (await this.#replan({ kind: 'failure', nodeId: failure.nodeId, error: failure.error, ...waitsFor }, snapshot, signal)).amendment;
  }

  /** A merge conflict: the run pauses (`onConflict: pause`), or a replan appends a node that redoes the change on the merged result, given the hunks. */
  async #onConflict(nodeId: string, conflict: NodeConflict, snapshot: ScheduleSnapshot, signal: AbortSignal): Promise<Amendment | undefined> {
    if (this.#settings.onConflict === 'pause') {
      this.#pause({ cause: 'conflict', reason: conflictPauseLine(this.#runId, nodeId, conflict) });
      return undefined;
    }
    const trigger: ReplanTrigger = { kind: 'failure', nodeId, error: conflictReplanError(nodeId, conflict) };
    return (await this.#replan(trigger, snapshot, signal, conflict)).amendment;
  }

  /** Replans one report of missed work; it stays unplanned, with the reason, unless a plan version takes it up. */
  async #replanReport(report: UnplannedWork, snapshot: ScheduleSnapshot, signal: AbortSignal): Promise<Amendment | undefined> {
    const replanned = await this.#replan(report.trigger, snapshot, signal);
    if (replanned.unplanned === undefined) this.#unplanned.delete(report.seq);
    else this.#unplanned.set(report.seq, { ...report, why: replanned.unplanned });
    return replanned.amendment;
  }

  /** Missed work an earlier process heard but never planned (the run failed for it): replanned before anything is scheduled. */
  async #replanEarlierReports(recovered: RecoveredRun): Promise<void> {
    for (const report of [...this.#unplanned.values()]) {
      if (this.#schedule.signal.aborted) return;
      const statuses = new Map(this.#plan.nodes.map((node) => [node.id, recovered.nodes.get(node.id)?.status ?? ('pending' as NodeStatus)]));
      await this.#replanReport(report, { nodes: this.#plan.nodes, statuses }, this.#schedule.signal);
    }
  }

  /**
   * One replan, as `replanVerdict` rules it: ask the planner, store the new version, and either go on
   * with it or pause for review (`reviewAfterReplan`). Gives the amendment to apply, or why the
   * trigger was not planned (the limit, the planner's error); neither when the new version waits for review.
   */
  async #replan(trigger: ReplanTrigger, snapshot: ScheduleSnapshot, signal: AbortSignal, conflict?: NodeConflict): Promise<{ amendment?: Amendment; unplanned?: string }> {
    const hasPlanner = this.#options.planner !== undefined;
    const verdict = replanVerdict({ trigger, statuses: snapshot.statuses, replansSoFar: this.#memory.replans, settings: this.#settings, hasPlanner, conflict: conflict !== undefined });
    // The failure stands (it waits for a human): the node fails with the next step for the human, no replan is recorded.
    if (verdict.kind === 'stand') return { unplanned: verdict.reason };
    const started = { trigger: trigger.kind, progress: verdict.progress, nodeId: trigger.nodeId };
    if (verdict.kind === 'give-up') {
      await this.#log.append({ type: 'replan/started', payload: { ...started, mode: 'append' } });
      await this.#log.append({ type: 'replan/finished', payload: { outcome: 'gave-up', reason: verdict.reason } });
      return { unplanned: verdict.reason };
    }
    await this.#log.append({ type: 'replan/started', payload: { ...started, mode: verdict.mode } });
    let next: Plan;
    try {
      const patch = await this.#askPlanner(trigger, verdict.mode, signal, conflict);
      next = applyPlanPatch(this.#plan, patch, trigger, { frozenNodeIds: verdict.frozen, completedNodeIds: verdict.completed, rules: this.#options.files.planRules });
    } catch (error) {
      await this.#log.append({ type: 'replan/finished', payload: { outcome: 'failed', error: errorMessage(error) } });
      return { unplanned: `the replan failed: ${errorMessage(error)}` };
    }
    const newCommands = changedCommandNodes(this.#plan, next);
    const lint = await planLintFindings(this.#options.linter, next, signal);
    const review = reviewAfterReplan({ settings: this.#settings, newCommands, lintErrors: lint.filter((finding) => finding.level === 'error').map((finding) => finding.message) });
    const status = review === undefined ? 'approved' : 'awaiting_approval';
    const saved = await savePlan(this.#db, this.#runId, { plan: next, reason: verdict.reason, status, runStatus: 'running', log: this.#log, ...(this.#options.linter === undefined ? {} : { lint }) });
    const version = saved.stored.version;
    await this.#log.append({ type: 'replan/finished', payload: { outcome: 'amended', version } });
    if (review !== undefined) {
      this.#pause({ cause: 'review', reason: review(version) });
      return {};
    }
    await this.#adopt(next, version);
    return { amendment: { nodes: next.nodes, restart: [] } };
  }

  /** Goes on with plan `version` (a replan's, a delegation's): its node rows, and transitions recorded under it. */
  async #adopt(next: Plan, version: number): Promise<void> {
    [this.#plan, this.#planVersion] = [next, version];
    if (this.#transitions !== undefined) this.#transitions.planVersion = version;
    await this.#db.transaction().execute((transaction) => ensureNodeRows(transaction, this.#runId, version, next.nodes));
  }

  async #askPlanner(trigger: ReplanTrigger, mode: 'full' | 'append', signal: AbortSignal, conflict?: NodeConflict): Promise<PlanPatch> {
    const planner = this.#options.planner;
    if (planner === undefined) {
      if (trigger.kind === 'missed-work') return { kind: 'append', nodes: [missedWorkNode(trigger)] };
      const failed = this.#plan.nodes.find((node) => node.id === trigger.nodeId);
      if (conflict !== undefined && failed !== undefined) return { kind: 'append', nodes: [conflictResolutionNode(failed, conflict, [...this.#memory.completed.values()])] };
      throw new Error('no planner is configured to replan a failed node');
    }
    const { task, workspace } = this.#run;
    return planner.amend({ runId: this.#runId, task, workspace, plan: this.#plan, mode, trigger, completed: [...this.#memory.completed.values()], signal, rules: this.#options.files.planRules, ...(this.#gate === undefined ? {} : { gate: this.#gate }) });
  }

  async #finish(status: 'succeeded' | 'failed' | 'cancelled', nodes: ReadonlyMap<string, { status: NodeStatus; attempts: number; error?: string }>): Promise<RunResult> {
    const unplanned = [...this.#unplanned.values()];
    const paused = this.#paused?.cause === 'budget' ? ((await this.#gate?.settledPause(this.#startedSeq)) ?? this.#paused) : this.#paused;
    const outcome = runOutcome({ status, plan: this.#plan, nodes, paused, unplanned, cancelReason: this.#cancelReason ?? this.#options.signal.reason });
    await runEndHooks(this.#options.runtime, this.#runId, outcome.status, this.#log);
    await endRun(this.#db, this.#runId, outcome.ending, this.#log);
    return {
      runId: this.#runId,
      status: outcome.status,
      planVersion: this.#planVersion,
      nodes: outcome.nodes,
      replans: this.#memory.replans,
      ...(outcome.status === 'paused' && paused !== undefined ? { pause: paused } : {}),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ...(outcome.unplanned === undefined ? {} : { unplannedWork: outcome.unplanned }),
      ...(outcome.status === 'paused' && this.#paused?.cause === 'conflict' ? { pausedFor: this.#paused.reason } : {}),
    };
  }
}
