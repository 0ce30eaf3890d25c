import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { amendmentIssues } from './amendment-issues.js';
import { RUNNING_PHASE, activePhase, loopCancelReason, loopFailure, loopIsOver, nextLoopPhase, type LoopPhase } from './loop-phase.js';
import { resumeStatus } from './node-status.js';
import { reclassifyNodes } from './reclassify-nodes.js';
import { DEFAULT_NODE_RETRY_POLICY, nodeRetryVerdict, type NodeRetryPolicy } from './retry-verdict.js';
import type { LoopInput, StartInput, Step, TransitionBody } from './loop-input.js';
import { byRank, rankNodeStates } from './node-ranks.js';
import { initialNodeStates, rebuildNodeStates, scheduleReport, scheduleSnapshot, type NodeState, type Ticket } from './node-state.js';
import { recordTransition } from './record-transition.js';
import type { NodeOutcome } from './schedulable-node.js';
import { createScheduleGraph, type ScheduleGraph } from './schedule-graph.js';
import { AmendQueue } from './amend-queue.js';
import { commitStep, watchSignal } from './commit-step.js';
import { LockGate } from './lock-gate.js';
import type { Amendment, AmendOutcome, Replan, ScheduleMode, ScheduleOptions, ScheduleResult, ScheduleSnapshot } from './schedule-options.js';
import { ScheduleRunner, type StartDecision } from './schedule-runner.js';
import { ScheduleAmendError } from './scheduler-errors.js';
import { TransitionWriter } from './transition-writer.js';

const WITHDRAW: StartDecision = { kind: 'withdraw' };
const NOT_STARTED_REASON = 'run cancelled before the node started';

/**
 * The loop that owns a schedule's state. Inputs (start requests, outcomes, retry timers,
 * cancellation, amendments) queue in an inbox; each step applies every queued input, promotes
 * what became ready and queues it in the runner (whose start requests, made at once when a slot
 * is free, join the same step), and hands the step's transitions to the `TransitionWriter`,
 * which stores them in decision order, one `onTransitions` call at a time, grouping what arrives
 * during a write into the next one. The step's starts are granted at once, each attempt holding
 * the promise of its `started` being stored (`NodeExecution.durable`): the write overlaps the
 * attempt's first, traceless work instead of delaying it. Everything else the step decided
 * (retry timers, failure hooks, amendment answers) waits until its transitions are stored, and
 * the schedule settles only when every transition is.
 */
export class ScheduleLoop<R> {
  readonly result: Promise<ScheduleResult<R>>;
  readonly #mode: ScheduleMode;
  readonly #policy: NodeRetryPolicy;
  readonly #options: ScheduleOptions<R>;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #abort = new AbortController();
  readonly #runner: ScheduleRunner<R, Ticket<R>>;
  readonly #gate: LockGate<R>;
  readonly #amends: AmendQueue<R>;
  readonly #writer: TransitionWriter<R>;
  #states: NodeState<R>[];
  #byId: Map<string, NodeState<R>>;
  #inbox: LoopInput<R>[] = [];
  #draining = false;
  /** Nodes ready or running. */
  #inFlight = 0;
  /** Attempts granted and not yet settled. */
  #executing = 0;
  /** While above zero, nothing is promoted, skipped by cascade or started (an amendment is being built). */
  #hold = 1;
  #eligible: NodeState<R>[] = [];
  #blocked: NodeState<R>[] = [];
  #deferredStarts: StartInput<R>[] = [];
  /** Running, cancelling, failing, or closed: one value with one transition function (`nextLoopPhase`). */
  #phase: LoopPhase = RUNNING_PHASE;
  #resolve!: (result: ScheduleResult<R>) => void;
  #reject!: (error: unknown) => void;
  #detachSignal: () => void = () => undefined;
  readonly #committing = { failed: () => this.#failure !== undefined, enterFatal: (error: unknown) => this.#enterFatal(error), post: (input: LoopInput<R>) => this.#post(input) };

  constructor(options: ScheduleOptions<R>) {
    const graph = createScheduleGraph(options.nodes);
    this.#options = options;
    // Every running attempt and retry timer listens on this one signal.
    setMaxListeners(0, this.#abort.signal);
    this.#mode = options.mode ?? 'eager';
    this.#policy = { ...DEFAULT_NODE_RETRY_POLICY, ...options.retry };
    this.#sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.#random = options.random ?? Math.random;
    this.#writer = new TransitionWriter(options.onTransitions);
    this.#runner = new ScheduleRunner<R, Ticket<R>>({
      concurrency: options.concurrency,
      execute: options.execute,
      signal: this.#abort.signal,
      requestStart: (ticket) => new Promise((grant) => this.#post({ kind: 'start', ticket, grant })),
      settle: (ticket, outcome) => this.#post({ kind: 'settled', ticket, outcome }),
      onBug: (error) => this.#post({ kind: 'fatal', error }),
    });
    this.#runner.pause();
    this.#gate = new LockGate(this.#runner, options.lockWrites ?? true);
    this.#amends = new AmendQueue<R>({ stopping: () => this.#stopping, snapshot: () => this.snapshot(), signal: this.#abort.signal, post: (input) => this.#post(input) });
    this.#states = initialNodeStates<R>(graph, options.initialStatus, options.initialAttempts);
    rankNodeStates(this.#states, options.costOf);
    this.#byId = new Map(this.#states.map((state) => [state.node.id, state]));
    this.#inFlight = this.#states.filter((state) => state.status === 'ready' || state.status === 'running').length;
    this.result = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#detachSignal = watchSignal(options.signal, (reason) => {
      this.#abort.abort(reason);
      this.#post({ kind: 'cancel', reason: typeof reason === 'string' ? reason : 'run cancelled' });
    });
    this.#post({ kind: 'begin' });
  }

  /** Holds dispatch, lets `replan` build an amendment from a snapshot, applies it, resumes. */
  amend(replan: Replan): Promise<AmendOutcome> {
    if (this.#phase.kind === 'closed') return Promise.resolve('closed');
    this.#holdOn();
    return this.#amends.queue(replan, false);
  }

  snapshot(): ScheduleSnapshot {
    return scheduleSnapshot(this.#states);
  }

  get #stopping(): boolean {
    return activePhase(this.#phase).kind !== 'running';
  }

  get #failure(): { readonly error: unknown } | undefined {
    return loopFailure(this.#phase);
  }

  #post(input: LoopInput<R>): void {
    this.#inbox.push(input);
    if (this.#draining) return;
    this.#draining = true;
    queueMicrotask(() => {
      try {
        this.#drain();
      } catch (error) {
        this.#close(error);
      }
    });
  }

  #drain(): void {
    while (this.#inbox.length > 0) {
      const step: Step<R> = { transitions: [], starts: [], effects: [], abandon: [] };
      try {
        // Inputs the step causes synchronously (start requests of the nodes it queues) join it.
        while (this.#inbox.length > 0) {
          const inputs = this.#inbox;
          this.#inbox = [];
          for (const input of inputs) this.#apply(step, input);
          this.#promote(step);
          this.#gate.retryWaiting(this.#stopping);
        }
      } catch (error) {
        this.#enterFatal(error);
      }
      commitStep(step, this.#writer, this.#committing);
    }
    this.#draining = false;
    this.#checkFinished();
  }

  #apply(step: Step<R>, input: LoopInput<R>): void {
    switch (input.kind) {
      case 'begin':
        return this.#begin(step);
      case 'start':
        return this.#start(step, input);
      case 'settled':
        return this.#settle(step, input.ticket, input.outcome);
      case 'retry-due': {
        const { state, token } = input.ticket;
        if (!this.#stopping && state.token === token && state.status === 'ready') this.#dispatch(state);
        return;
      }
      case 'cancel':
        return this.#cancel(step, input.reason);
      case 'amend':
        return this.#applyAmendment(step, input.amendment, input.graph, input.done);
      case 'release':
        return this.#release(step);
      case 'fatal':
        return this.#enterFatal(input.error);
    }
  }

  /** Validates the move, keeps `#inFlight` right, and queues the transition for storing. */
  #record(step: Step<R>, state: NodeState<R>, body: TransitionBody<R>): void {
    this.#inFlight += recordTransition(step, state, body);
  }

  /** First step: statuses from an earlier session restart (succeeded stays), then the first promotion. */
  #begin(step: Step<R>): void {
    for (const state of this.#states) {
      const status = resumeStatus(state.status);
      if (status !== state.status) this.#record(step, state, { kind: 'reset', to: 'pending', cause: 'resume' });
    }
    this.#release(step);
  }

  #start(step: Step<R>, input: StartInput<R>): void {
    const { state, token } = input.ticket;
    if (this.#stopping || state.token !== token || state.status !== 'ready') return input.grant(WITHDRAW);
    if (this.#hold > 0) {
      this.#deferredStarts.push(input);
      return;
    }
    state.attempts += 1;
    state.budgetUsed += 1;
    this.#record(step, state, { kind: 'started', to: 'running' });
    const attempt = state.attempts;
    step.starts.push((durable) => {
      this.#executing += 1;
      input.grant({ kind: 'run', attempt, durable });
    });
    // Only when the step is abandoned before its starts are granted; a later grant is a no-op.
    step.abandon.push(() => input.grant(WITHDRAW));
  }

  #settle(step: Step<R>, ticket: Ticket<R>, outcome: NodeOutcome<R>): void {
    this.#executing -= 1;
    const { state } = ticket;
    if (this.#failure !== undefined) return;
    this.#gate.release(state); // the attempt is over: its writes are done
    if (outcome.status === 'succeeded') {
      state.result = outcome.result;
      state.error = undefined;
      this.#record(step, state, { kind: 'succeeded', to: 'succeeded', result: outcome.result });
      for (const dependent of state.dependents) {
        if (--dependent.unmet === 0 && dependent.status === 'pending') this.#eligible.push(dependent);
      }
      return;
    }
    state.error = outcome.error;
    const cancelReason = loopCancelReason(this.#phase);
    if (cancelReason !== undefined) return this.#record(step, state, { kind: 'cancelled', to: 'cancelled', reason: cancelReason });
    const verdict = nodeRetryVerdict({ attempt: state.budgetUsed, retryable: outcome.retryable !== false, aborted: false }, this.#policy, this.#random);
    if (verdict.action === 'retry') {
      this.#record(step, state, { kind: 'retried', to: 'ready', error: outcome.error, delayMs: verdict.delayMs });
      const retry: Ticket<R> = { state, token: state.token };
      step.effects.push(() => this.#armRetry(retry, verdict.delayMs));
      return;
    }
    const waitsFor = outcome.waitsFor === undefined ? {} : { waitsFor: outcome.waitsFor };
    this.#record(step, state, { kind: 'failed', to: 'failed', error: outcome.error, ...waitsFor });
    const onNodeFailed = this.#options.onNodeFailed;
    if (onNodeFailed === undefined) {
      this.#blocked.push(state);
      return;
    }
    // Hold now, inside this step, so the dependents are not skipped before the hook decides.
    this.#holdOn();
    const failure = { nodeId: state.node.id, error: outcome.error, attempts: state.attempts, ...waitsFor };
    step.effects.push(() => void this.#amends.queue((snapshot, signal) => onNodeFailed(failure, snapshot, signal), true));
  }

  #armRetry(ticket: Ticket<R>, delayMs: number): void {
    // A rejected sleep (aborted) posts too: the stale or cancelled ticket is then ignored.
    const due = (): void => this.#post({ kind: 'retry-due', ticket });
    this.#sleep(delayMs, this.#abort.signal).then(due, due);
  }

  #cancel(step: Step<R>, reason: string): void {
    const next = nextLoopPhase(this.#phase, { kind: 'cancel', reason });
    if (next === this.#phase) return;
    this.#phase = next;
    this.#abort.abort(reason);
    this.#runner.clear();
    for (const state of this.#states) {
      if (state.status !== 'ready') continue;
      this.#gate.withdraw(state);
      this.#record(step, state, { kind: 'cancelled', to: 'cancelled', reason: NOT_STARTED_REASON });
    }
    this.#dropWaiting();
  }

  #enterFatal(error: unknown): void {
    const next = nextLoopPhase(this.#phase, { kind: 'fail', error });
    if (next === this.#phase) return;
    this.#phase = next;
    this.#abort.abort(error);
    this.#runner.clear();
    this.#dropWaiting();
  }

  #dropWaiting(): void {
    for (const input of this.#deferredStarts) input.grant(WITHDRAW);
    this.#deferredStarts = [];
    this.#gate.dropWaiting();
  }

  #holdOn(): void {
    if (this.#hold++ === 0) this.#runner.pause();
  }

  /** Ends one hold; the last one re-derives every not-started node and lets dispatch go on. */
  #release(step: Step<R>): void {
    this.#hold -= 1;
    if (this.#hold > 0 || this.#stopping) return;
    this.#reclassify(step);
    this.#runner.resume();
    const deferred = this.#deferredStarts;
    this.#deferredStarts = [];
    for (const input of deferred) this.#start(step, input);
  }

  /**
   * Recomputes, from scratch, which nodes wait, which can never start and which are eligible:
   * after the first step, an amendment, or a failure whose hook let it stand.
   */
  #reclassify(step: Step<R>): void {
    for (const state of this.#states) {
      state.unmet = 0;
      for (const dependency of state.dependencies) if (dependency.status !== 'succeeded') state.unmet += 1;
    }
    const { unready, unskip, skip } = reclassifyNodes(this.#states);
    for (const state of unready) {
      this.#gate.withdraw(state);
      this.#record(step, state, { kind: 'reset', to: 'pending', cause: 'amend' });
    }
    for (const state of unskip) this.#record(step, state, { kind: 'reset', to: 'pending', cause: 'amend' });
    for (const [state, blocker] of skip) this.#skip(step, state, blocker);
    this.#blocked = [];
    this.#eligible = this.#states.filter((state) => state.status === 'pending' && state.unmet === 0);
  }

  #skip(step: Step<R>, state: NodeState<R>, blocker: NodeState<R>): void {
    const reason = `dependency "${blocker.node.id}" ${blocker.status}`;
    this.#record(step, state, { kind: 'skipped', to: 'skipped', blockedBy: blocker.node.id, reason });
  }

  /** End of a step: skip what can never run, then make eligible nodes ready (batch: only between batches). */
  #promote(step: Step<R>): void {
    if (this.#hold > 0 || this.#stopping) return;
    for (let head = 0; head < this.#blocked.length; head += 1) {
      const blocker = this.#blocked[head]!;
      for (const dependent of blocker.dependents) {
        if (dependent.status !== 'pending') continue;
        this.#skip(step, dependent, blocker);
        this.#blocked.push(dependent);
      }
    }
    this.#blocked = [];
    if (this.#mode === 'batch' && this.#inFlight > 0) return;
    const eligible = this.#eligible;
    this.#eligible = [];
    for (const state of byRank(eligible)) {
      if (state.status !== 'pending' || state.unmet > 0) continue;
      this.#record(step, state, { kind: 'ready', to: 'ready' });
      this.#dispatch(state);
    }
  }

  /** Queues a ready node in the runner once its write locks are free; it runs only when its start is granted. */
  #dispatch(state: NodeState<R>): void {
    if (state.status !== 'ready' || this.#stopping) return;
    state.token += 1;
    this.#gate.enqueue({ state, token: state.token });
  }

  #applyAmendment(step: Step<R>, amendment: Amendment, graph: ScheduleGraph, done: (outcome: AmendOutcome | Error) => void): void {
    if (this.#stopping) return done('closed');
    const issues = amendmentIssues(this.#states, amendment);
    if (issues.length > 0) return done(new ScheduleAmendError(issues));
    for (const state of this.#states) {
      if (state.status === 'ready' && !graph.indexOf.has(state.node.id)) {
        this.#gate.withdraw(state);
        this.#record(step, state, { kind: 'reset', to: 'pending', cause: 'amend' });
      }
    }
    this.#states = rebuildNodeStates(this.#byId, graph);
    rankNodeStates(this.#states, this.#options.costOf);
    this.#byId = new Map(this.#states.map((state) => [state.node.id, state]));
    for (const id of amendment.restart ?? []) {
      const state = this.#byId.get(id)!;
      state.budgetUsed = 0;
      this.#record(step, state, { kind: 'reset', to: 'pending', cause: 'amend' });
    }
    step.effects.push(() => done('applied'));
    step.abandon.push(() => done('closed'));
  }

  #checkFinished(): void {
    if (!this.#draining && loopIsOver(this.#phase, { hold: this.#hold, inFlight: this.#inFlight, executing: this.#executing })) this.#close();
  }

  /** Settles the schedule once every transition decided so far is stored. */
  #close(bug?: unknown): void {
    if (this.#phase.kind === 'closed') return;
    this.#phase = nextLoopPhase(this.#phase, { kind: 'close' });
    this.#detachSignal();
    if (bug !== undefined) return this.#reject(bug);
    const report = this.#failure === undefined ? scheduleReport(this.#states, loopCancelReason(this.#phase) !== undefined) : undefined;
    this.#writer.idle().then(
      () => {
        const failure = this.#failure;
        if (failure === undefined) this.#resolve(report!);
        else this.#reject(failure.error);
      },
      (error: unknown) => this.#reject(this.#failure?.error ?? error),
    );
  }
}

