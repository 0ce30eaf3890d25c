import type { StepPosition } from '../context/runtime-context.js';
import type { SessionEvent } from '../session/event-types.js';
import type { EventLog } from '../session/event-log.js';
import type { KnownWrites } from '../session/known-writes.js';
import type { Session } from '../session/session.js';

/** How often a paused node looks in the log for a resume written by another process. */
export const STEERING_POLL_MS = 500;

/**
 * A step's words are those in the log when its boundary looked, unless preparing the step took
 * longer than this (a compaction): then it looks again before the request is built.
 */
export const STEERING_FRESH_MS = 50;

const STEERING_EVENT_TYPES = ['node/told', 'node/pause-requested', 'node/resume-requested', 'node/paused', 'user/message'] as const;
/** What a person (or another process) writes to steer a node; the rest of the steering types follow from these. */
const INCOMING_STEERING_TYPES = ['node/told', 'node/pause-requested', 'node/resume-requested'] as const;
/** The steering types only the process running the node writes for it (the words it delivered, its pause): a follower need not hear them. */
const OWN_STEERING_TYPES = ['user/message', 'node/paused'] as const;

type SteeringEvent = SessionEvent<(typeof STEERING_EVENT_TYPES)[number]>;

/** What a node's log says about steering it: words not yet delivered, and whether it should pause. */
export interface SteeringState {
  /** `node/told` events no `user/message` delivered yet, in order. */
  readonly pending: readonly SessionEvent<'node/told'>[];
  /** Seqs of `node/told` events already delivered. */
  readonly delivered: ReadonlySet<number>;
  /** A `node/pause-requested` is the latest pause or resume request. */
  readonly pauseRequested: boolean;
  /** The node wrote `node/paused` after the latest pause request. */
  readonly pausedAnnounced: boolean;
}

export const NO_STEERING: SteeringState = { pending: [], delivered: new Set(), pauseRequested: false, pausedAnnounced: false };

/** Folds one event of the node's log into its steering state. Pure. */
export function reduceSteering(state: SteeringState, event: SteeringEvent): SteeringState {
  switch (event.type) {
    case 'node/told':
      return state.delivered.has(event.seq) ? state : { ...state, pending: [...state.pending, event] };
    case 'user/message': {
      if (event.payload.source !== 'user' || event.sourceEventSeqs === undefined) return state;
      const delivered = new Set([...state.delivered, ...event.sourceEventSeqs]);
      return { ...state, delivered, pending: state.pending.filter((told) => !delivered.has(told.seq)) };
    }
    case 'node/pause-requested':
      return { ...state, pauseRequested: true, pausedAnnounced: false };
    case 'node/resume-requested':
      return { ...state, pauseRequested: false, pausedAnnounced: false };
    case 'node/paused':
      return { ...state, pausedAnnounced: state.pauseRequested };
  }
}

/**
 * What a person says to a running node and when they stop it, heeded at its step boundaries.
 * The requests come through the run's shared log from any process (`dagent say`, `dagent pause`,
 * a dashboard), so a boundary reads the node's new steering events from the database: one
 * indexed query from the last seq it saw. It skips that read when nothing of the kind can have
 * been written since the last one (the log's `KnownWrites`: this process's own appends, and the
 * other processes' inserts a follower heard), unless that read is older than the poll interval
 * (a notification lost with its connection costs at most that long). A node whose steering is
 * still empty skips it too while nothing was told to, or asked of, any node of the run
 * (`SteeringReads.nothingIncoming`): so a node's first step, in a run nobody steers, reads nothing.
 * A word becomes exactly one `user/message` (source `user`) naming its `node/told` in
 * `sourceEventSeqs`, so a resumed node never hears it twice.
 */
export class NodeSteering {
  readonly #session: Session;
  readonly #pollMs: number;
  #state: SteeringState = NO_STEERING;
  #checkedSeq = 0;
  /** When the log was last looked at (`performance.now()`). */
  #checkedAt = Number.NEGATIVE_INFINITY;
  /** When the store was last read, and the log's change mark before that read. */
  #readAt = Number.NEGATIVE_INFINITY;
  #readMark: number | undefined;

  constructor(session: Session, options: { readonly pollMs?: number } = {}) {
    this.#session = session;
    this.#pollMs = options.pollMs ?? STEERING_POLL_MS;
  }

  /**
   * At a step boundary: when a pause is asked for, writes `node/paused` and waits until a resume
   * request (or the signal) ends it. Resolves at once otherwise.
   */
  async holdWhilePaused(signal: AbortSignal): Promise<void> {
    await this.#refresh();
    if (!this.#state.pauseRequested) return;
    if (!this.#state.pausedAnnounced) await this.#session.append({ type: 'node/paused', payload: {} });
    while (this.#state.pauseRequested && !signal.aborted) {
      await this.#nextAppendOrPoll(signal);
      await this.#refresh();
    }
  }

  /** Appends each word told since the last step as a user message of the step at `position`; returns how many. */
  async deliverWords(position: StepPosition): Promise<number> {
    if (performance.now() - this.#checkedAt > STEERING_FRESH_MS) await this.#refresh();
    const words = this.#state.pending;
    if (words.length === 0) return 0;
    for (const told of words) {
      await this.#session.append({ type: 'user/message', turn: position.turn, step: position.step, sourceEventSeqs: [told.seq], payload: { content: told.payload.content, source: 'user' } });
    }
    await this.#refresh();
    return words.length;
  }

  async #refresh(): Promise<void> {
    const now = performance.now();
    this.#checkedAt = now;
    const { writes } = this.#session.log;
    const mark = writes.mark(this.#session.nodeId, STEERING_EVENT_TYPES, OWN_STEERING_TYPES);
    if (mark !== undefined && mark === this.#readMark && now - this.#readAt < this.#pollMs) return;
    const reads = steeringReadsOf(this.#session.log);
    if (mark !== undefined && this.#state === NO_STEERING && (await reads.nothingIncoming(this.#pollMs))) {
      // Nothing was told to or asked of any node: this node's steering is as empty as a read would find it.
      this.#readMark = mark;
      this.#readAt = now;
      return;
    }
    this.#readMark = mark;
    this.#readAt = now;
    const events = await reads.read(this.#session.nodeId, this.#checkedSeq + 1);
    for (const event of events) {
      this.#state = reduceSteering(this.#state, event);
      this.#checkedSeq = Math.max(this.#checkedSeq, event.seq);
    }
  }

  /** Resolves on the next append of this node in this process, after `pollMs`, or on abort. */
  async #nextAppendOrPoll(signal: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.#pollMs);
      const unsubscribe = this.#session.log.onNodeAppend(this.#session.nodeId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

interface SteeringRead {
  readonly nodeId: string | null;
  readonly fromSeq: number;
  resolve(events: readonly SteeringEvent[]): void;
  reject(error: unknown): void;
}

/**
 * The steering reads of one run's nodes in this process, taken together: the nodes whose step
 * boundaries look while a read is in flight share the next one (one query for all their nodes,
 * from the earliest seq any of them needs). A wide stage's nodes reach their first boundary
 * within milliseconds of each other, and each read its own. A read starts after every call it
 * answers, so it sees whatever was committed before each of them.
 */
class SteeringReads {
  readonly #log: EventLog;
  #waiting: SteeringRead[] = [];
  #reading = false;
  /** When a look at the whole run found nothing incoming, and the run's mark of those types then; `stale` once that mark moved. */
  #quiet: { readonly mark: number; readonly at: number } | 'stale' | undefined;
  /** Seqs up to this held nothing incoming when last looked at. */
  #lookedTo = 0;
  #looking: Promise<boolean> | undefined;

  constructor(log: EventLog) {
    this.#log = log;
  }

  /**
   * Whether no node of the run was told anything or asked to pause, as far as this process can
   * know without a read: while a follower listens, nothing of those kinds was written since a look
   * at the whole run found none (this process's own appends and other processes' inserts move the
   * mark), within `pollMs` of that look. One look at the run answers every node that asks meanwhile,
   * from the seqs it had not looked at; once anything of the kind was written (the mark moved, or a
   * look found some), each node reads its own, as before.
   */
  async nothingIncoming(pollMs: number): Promise<boolean> {
    const writes = this.#log.writes;
    const mark = writes.markOfTypes(INCOMING_STEERING_TYPES);
    if (mark === undefined || this.#quiet === 'stale') return false;
    if (this.#quiet !== undefined && this.#quiet.mark !== mark) {
      this.#quiet = 'stale';
      return false;
    }
    if (this.#quiet !== undefined && performance.now() - this.#quiet.at < pollMs) return true;
    this.#looking ??= this.#look(mark).finally(() => (this.#looking = undefined));
    return this.#looking;
  }

  async #look(mark: number): Promise<boolean> {
    const at = performance.now();
    // Seqs this process stored are committed: a read that starts now sees every seq up to them.
    const upTo = this.#log.writes.lastAppendedSeq;
    const found = await this.#log.read({ types: INCOMING_STEERING_TYPES, fromSeq: this.#lookedTo + 1, limit: 1 });
    if (found.length > 0 || this.#log.writes.markOfTypes(INCOMING_STEERING_TYPES) !== mark) {
      this.#quiet = 'stale';
      return false;
    }
    this.#quiet = { mark, at };
    this.#lookedTo = Math.max(this.#lookedTo, upTo);
    return true;
  }

  read(nodeId: string | null, fromSeq: number): Promise<readonly SteeringEvent[]> {
    const events = new Promise<readonly SteeringEvent[]>((resolve, reject) => this.#waiting.push({ nodeId, fromSeq, resolve, reject }));
    if (!this.#reading) void this.#readWaiting();
    return events;
  }

  async #readWaiting(): Promise<void> {
    this.#reading = true;
    try {
      while (this.#waiting.length > 0) {
        const reads = this.#waiting.splice(0);
        try {
          const events = await this.#readFor(reads);
          for (const read of reads) read.resolve(events.filter((event) => event.nodeId === read.nodeId && event.seq >= read.fromSeq));
        } catch (error) {
          for (const read of reads) read.reject(error);
        }
      }
    } finally {
      this.#reading = false;
    }
  }

  async #readFor(reads: readonly SteeringRead[]): Promise<readonly SteeringEvent[]> {
    const fromSeq = Math.min(...reads.map((read) => read.fromSeq));
    const nodeIds = [...new Set(reads.map((read) => read.nodeId))];
    // Run-level reads (no node) are rare: they and a single node keep the one-node query.
    if (nodeIds.length === 1) return this.#log.read({ nodeId: nodeIds[0]!, types: STEERING_EVENT_TYPES, fromSeq });
    const nodes = nodeIds.filter((nodeId): nodeId is string => nodeId !== null);
    const events = await this.#log.read({ nodeIds: nodes, types: STEERING_EVENT_TYPES, fromSeq });
    if (nodes.length === nodeIds.length) return events;
    return [...events, ...(await this.#log.read({ nodeId: null, types: STEERING_EVENT_TYPES, fromSeq }))];
  }
}

/** Keyed by the log's `writes`, which a run's live log shares with its views (a worker's fenced logs). */
const steeringReads = new WeakMap<KnownWrites, SteeringReads>();

function steeringReadsOf(log: EventLog): SteeringReads {
  let reads = steeringReads.get(log.writes);
  if (reads === undefined) {
    reads = new SteeringReads(log);
    steeringReads.set(log.writes, reads);
  }
  return reads;
}
