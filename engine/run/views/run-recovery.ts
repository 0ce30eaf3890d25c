import type { CompletedNode } from '../../plan/planner.js';
import type { SessionEvent } from '../../session/event-types.js';
import type { Plan } from '../../plan/plan-schema.js';
import { workHashes, type NodeInputs } from './reuse-key.js';
import { NODE_TRANSITION_EVENT_TYPES } from '../storage/node-event.js';
import { nodeStatesFromEvents, type FoldedNodeState } from './node-states.js';
import { emptyRunView, reduceRunView } from './run-view.js';
import { SPEND_EVENT_TYPES, isSpendEvent } from '../budget/spend-events.js';
import type { RunView } from './run-view-types.js';
import { UNPLANNED_WORK_EVENT_TYPES, unplannedWork, type UnplannedWork } from './unplanned-work.js';

/**
 * What a run's log keeps of its work for whoever carries it on: each succeeded node's handoff (and,
 * in clone mode, its patch), each node's last snapshot boundary, and how many replans amended the
 * plan. One fold, fed the log read on resume and then every event as it is appended; the run
 * controller keeps one for the run, and a worker folds one for the node attempt it claims.
 */
export class RunMemory {
  /** Each succeeded node's answer and files, in the order they succeeded. */
  readonly completed = new Map<string, CompletedNode>();
  /** Each node's patch in clone mode (from the worker's `attempt/finished`). */
  readonly patches = new Map<string, string>();
  /** Each node's last snapshot boundary (`node/snapshotted`): what its files go back to before it runs again. */
  readonly boundaries = new Map<string, unknown>();
  /** Replans that amended the plan. */
  replans = 0;
  /** Each node's last reuse key, with the result it keyed and the seqs of the attempt that made it. */
  readonly keyed = new Map<string, KeyedResult>();
  /** The seq of each node's last `node/snapshotted`: where its last attempt began. */
  readonly #attemptSeqs = new Map<string, number>();
  /** Each node's attempt that began and has not ended (no settling transition yet). */
  readonly #openAttempts = new Map<string, OpenAttempt>();
  /** Each node's last attempt that the run's stop ended (`node/cancelled`), with the plan version it ran under. */
  readonly #stoppedAttempts = new Map<string, StoppedAttempt>();
  /** Nodes whose open attempt a worker ended (`attempt/finished`), and whether it can go on: see `#workerAttemptGoesOn`. */
  readonly #endedOnWorker = new Map<string, boolean>();
  /** The plan version the run runs as of the events folded so far: the one its last process started with, or one approved since. */
  #planVersion: number | undefined;
  /** Each plan version's nodes' work (`workHashes`): whether a node's work changed from one version to another. */
  readonly #work = new Map<number, ReadonlyMap<string, string>>();

  /**
   * The node's last attempt when it began and never ended: its process stopped while it ran (a
   * step-level resume can go on from it). Undefined once any transition settled it.
   */
  openAttempt(nodeId: string): OpenAttempt | undefined {
    return this.#openAttempts.get(nodeId);
  }

  /**
   * The node's last attempt when it can go on rather than start over: one that began and never
   * ended (`openAttempt`), or one the run's stop ended — a cancel or a pause records
   * `node/cancelled` for every attempt it stops — when the run goes on under `planVersion`, the
   * version that attempt ran under. A failure, a retry, a reset (rerun) or a new attempt ends
   * that. Under another plan version (an edit, an import, a replan) either goes on only while the
   * node's work (`workHashes`: its instructions, files, tools, model, the plan's goal, and the same
   * of every node it depends on; not its budget) is the same in both: changed, the node starts over
   * with the new one. An attempt a
   * worker ran goes on only on a worker (`onWorkers`): its boundary and checkpoints are of the
   * shared working copy (or patches of a worker's clone), not of the worktrees a run in the
   * scheduler's own process may give its nodes.
   */
  attemptToGoOn(nodeId: string, planVersion: number, { onWorkers = false }: { readonly onWorkers?: boolean } = {}): OpenAttempt | undefined {
    const open = this.#openAttempts.get(nodeId);
    if (open !== undefined) return this.#sameWork(nodeId, open.planVersion, planVersion) ? open : undefined;
    const stopped = this.#stoppedAttempts.get(nodeId);
    if (stopped === undefined || !this.#sameWork(nodeId, stopped.planVersion, planVersion)) return undefined;
    return stopped.onWorker && !onWorkers ? undefined : stopped.attempt;
  }

  /**
   * Why the node starts over under `planVersion` rather than going on from an earlier attempt that
   * had model answers to keep (`attemptToGoOn` gives none), for its new attempt's marker; undefined
   * when there was nothing to go on from, or it goes on. `modelCalls`: that attempt's answers, when
   * the caller counts them (a worker's fold does not).
   */
  whyStartsOver(nodeId: string, planVersion: number): { readonly reason: string; readonly attempt: OpenAttempt } | undefined {
    if (this.attemptToGoOn(nodeId, planVersion, { onWorkers: true }) !== undefined) return undefined;
    const earlier = this.#openAttempts.get(nodeId) ?? this.#stoppedAttempts.get(nodeId)?.attempt;
    return earlier === undefined ? undefined : { reason: `its work changed in plan v${planVersion}`, attempt: earlier };
  }

  /** Whether an attempt of the node ever began its surface (`node/snapshotted`): the log may hold steps and compactions of it. */
  hasSurfaced(nodeId: string): boolean {
    return this.#attemptSeqs.has(nodeId);
  }

  add(events: readonly SessionEvent[]): this {
    for (const event of events) this.#add(event);
    return this;
  }

  /** Whether the node's work is the same under both versions (unknown: not the same, unless it is one version). */
  #sameWork(nodeId: string, began: number | undefined, now: number): boolean {
    if (began === undefined || began === now) return true;
    const before = this.#work.get(began)?.get(nodeId);
    return before !== undefined && before === this.#work.get(now)?.get(nodeId);
  }

  #add(event: SessionEvent): void {
    if (event.type === 'plan/created' || event.type === 'plan/amended') {
      this.#work.set(event.payload.version, nodeWork(event.payload.plan as Plan));
      return;
    }
    if (event.type === 'replan/finished') {
      if (event.payload.outcome === 'amended') this.replans += 1;
      return;
    }
    // The version the run runs: the one its process started with, or one approved since (a replan or a delegation it took up).
    if (event.type === 'run/started' || event.type === 'plan/approved') {
      this.#planVersion = (event.type === 'run/started' ? event.payload.planVersion : event.payload.version) ?? this.#planVersion;
      return;
    }
    const nodeId = event.nodeId;
    if (nodeId === null) return;
    if (event.type === 'assistant/message') {
      const open = this.#openAttempts.get(nodeId);
      if (open !== undefined) this.#openAttempts.set(nodeId, { ...open, modelCalls: open.modelCalls + 1 });
      return;
    }
    if (ATTEMPT_ENDS.has(event.type)) this.#endAttempt(nodeId, event.type === 'node/cancelled');
    if (event.type === 'node/succeeded') {
      const keyed = this.keyed.get(nodeId);
      if (keyed !== undefined && keyed.result === undefined) this.keyed.set(nodeId, { ...keyed, result: { nodeId, result: event.payload.result, filesChanged: event.payload.filesChanged ?? [] }, toSeq: event.seq });
    }
    if (event.type === 'node/reset') {
      // Its change was undone (or is undone when it runs again): nothing of it is handed on or put back.
      this.completed.delete(nodeId);
      this.boundaries.delete(nodeId);
    } else if (event.type === 'node/succeeded') this.completed.set(nodeId, { nodeId, result: event.payload.result, filesChanged: event.payload.filesChanged ?? [] });
    else if (event.type === 'node/snapshotted') {
      this.boundaries.set(nodeId, event.payload.boundary);
      this.#attemptSeqs.set(nodeId, event.seq);
      this.#openAttempts.set(nodeId, { fromSeq: event.seq, attempt: event.payload.attempt, boundary: event.payload.boundary, modelCalls: 0, ...(this.#planVersion === undefined ? {} : { planVersion: this.#planVersion }) });
      this.#stoppedAttempts.delete(nodeId);
      this.#endedOnWorker.delete(nodeId);
    } else if (event.type === 'node/keyed') {
      const { key, inputs, planVersion } = event.payload;
      this.keyed.set(nodeId, { key, inputs, planVersion, fromSeq: this.#attemptSeqs.get(nodeId) ?? 0 });
    }
    else if (event.type === 'attempt/finished') {
      if (event.payload.patch !== undefined) this.patches.set(nodeId, event.payload.patch);
      const goesOn = this.#workerAttemptGoesOn(event.payload.outcome);
      if (this.#openAttempts.get(nodeId)?.attempt === event.payload.attempt) this.#endedOnWorker.set(nodeId, goesOn);
      const stopped = this.#stoppedAttempts.get(nodeId);
      if (stopped?.attempt.attempt === event.payload.attempt) {
        if (goesOn) this.#stoppedAttempts.set(nodeId, { ...stopped, onWorker: true });
        else this.#stoppedAttempts.delete(nodeId);
      }
    }
  }

  /**
   * A transition settled the node's attempt. Stopped by the run (`cancelled`), an attempt that
   * began here or on a worker (whose outcome the stop cut short) is kept to go on from; an attempt that went on from a stopped one
   * (no marker of its own) and is stopped again keeps the one it went on from. Any other end
   * forgets both.
   */
  #endAttempt(nodeId: string, stoppedByRun: boolean): void {
    const open = this.#openAttempts.get(nodeId);
    this.#openAttempts.delete(nodeId);
    const onWorker = this.#endedOnWorker.get(nodeId);
    this.#endedOnWorker.delete(nodeId);
    if (!stoppedByRun) this.#stoppedAttempts.delete(nodeId);
    else if (open !== undefined && onWorker !== false && this.#planVersion !== undefined) this.#stoppedAttempts.set(nodeId, { attempt: open, planVersion: this.#planVersion, onWorker: onWorker === true });
  }

  /**
   * Whether an attempt a worker ended (with `outcome`) can be gone on from once the run's stop
   * ended it too: one the stop cut short, not one its worker had answered. In the shared working
   * copy its files and checkpoints are where every process of the run finds them; in a worker's own
   * clone its checkpoints are patches in the log, which another worker's clone is put at.
   */
  #workerAttemptGoesOn(outcome: 'succeeded' | 'failed'): boolean {
    return outcome === 'failed';
  }
}

/** A node attempt that began (`node/snapshotted` at `fromSeq`) and never ended; `modelCalls`: its `assistant/message` events so far. */
export interface OpenAttempt {
  readonly fromSeq: number;
  readonly attempt: number;
  readonly boundary: unknown;
  readonly modelCalls: number;
  /** The plan version it began under. */
  readonly planVersion?: number;
}

/** Each node's work (`workHashes`) in a stored plan version (a plan the log holds was checked when stored). */
function nodeWork(plan: Plan): ReadonlyMap<string, string> {
  return Array.isArray(plan?.nodes) ? workHashes(plan) : new Map();
}

/** An attempt the run's stop ended, and the plan version it ran under. */
interface StoppedAttempt {
  readonly attempt: OpenAttempt;
  readonly planVersion: number;
  /** A worker ran it (in the shared working copy, or in its own clone): only a worker goes on from it. */
  readonly onWorker: boolean;
}

/** Transitions after which a node's attempt is over: only one the run's stop ended (`node/cancelled`) may go on (`attemptToGoOn`). */
const ATTEMPT_ENDS: ReadonlySet<string> = new Set(['node/succeeded', 'node/failed', 'node/retried', 'node/cancelled', 'node/skipped', 'node/reset']);

/** A node's reuse key as its last `node/keyed` recorded it, and the result it keyed. */
export interface KeyedResult {
  readonly key: string;
  readonly inputs: NodeInputs;
  readonly planVersion: number;
  /** The seq of the `node/snapshotted` that began the attempt, and of its `node/succeeded`: the calls it cost. */
  readonly fromSeq: number;
  readonly toSeq?: number;
  readonly result?: CompletedNode;
}

/** The events `RunMemory` folds. */
export const RUN_MEMORY_EVENT_TYPES = ['node/succeeded', 'node/snapshotted', 'attempt/finished', 'replan/finished', 'node/reset', 'node/keyed', 'node/failed', 'node/retried', 'node/cancelled', 'node/skipped', 'assistant/message', 'run/started', 'plan/approved', 'plan/created', 'plan/amended'] as const;

/** A run as an earlier process of it left it: where a resumed run carries on from. */
export interface RecoveredRun {
  /** Each node's last status and attempts. */
  readonly nodes: ReadonlyMap<string, FoldedNodeState>;
  readonly memory: RunMemory;
  /** Reported missed work no plan version took up yet. */
  readonly unplanned: readonly UnplannedWork[];
  /** Tokens and cost so far (the view's usage fold), for the `nodes` rows. */
  readonly usage: RunView;
}

/** The events `recoverRun` reads. */
export const RECOVERED_EVENT_TYPES = [...new Set([...NODE_TRANSITION_EVENT_TYPES, ...UNPLANNED_WORK_EVENT_TYPES, ...RUN_MEMORY_EVENT_TYPES, ...SPEND_EVENT_TYPES] as const)];

/** The one fold of a run's log on resume: node states, handoffs and boundaries, replans, unplanned work, usage. */
export function recoverRun(runId: string, events: readonly SessionEvent[]): RecoveredRun {
  let usage = emptyRunView(runId);
  for (const event of events) if (isSpendEvent(event)) usage = reduceRunView(usage, event);
  return { nodes: nodeStatesFromEvents(events), memory: new RunMemory().add(events), unplanned: unplannedWork(events), usage };
}
