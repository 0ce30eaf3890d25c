import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { NodeResult, RemoteAttempts } from '../run/orchestration/run-options.js';
import type { NodeExecution, NodeOutcome } from '../scheduler/schedulable-node.js';
import { readEvents } from '../session/event-log.js';
import type { SessionEvent } from '../session/event-types.js';
import { nodeJobKeyPrefix, type JobQueue, type NodeJob } from './job-queue.js';
import { DEFAULT_NODE_CLAIM_TTL_MS, readNodeClaims } from './node-claim.js';
import { PENDING_RESULT_EVENT_TYPES, PendingResults } from './pending-results.js';
import { OUTCOMES_NOTIFY_CHANNEL } from '../session/one-statement-append.js';
import { hearNotifications } from '../session/postgres-notifications.js';

export interface DispatchedAttemptsOptions {
  readonly db: Kysely<Database>;
  readonly runId: string;
  readonly queue: JobQueue;
  /** How often the log and the claims are looked at when no wake-up came (ms). */
  readonly pollMs?: number;
  /**
   * The PostgreSQL store's URL: the workers' outcomes are listened for (`LISTEN dagent_outcomes`,
   * which a worker notifies once its `attempt/finished` commits), so each is read as it commits,
   * not at the next poll; the nodes' other appends wake nothing.
   */
  readonly listenUrl?: string;
  /**
   * A worker's success, before the scheduler records it (clone mode: apply the node's patch to the
   * user's workspace). Returns the outcome to record.
   */
  readonly accept?: (nodeId: string, finished: SessionEvent<'attempt/finished'>) => Promise<NodeOutcome<NodeResult>>;
  /**
   * A job a worker took (locked) without claiming its node within this long is taken for lost —
   * the worker died between the two — and the node is queued again (ms; the default claim TTL).
   */
  readonly lockedJobGraceMs?: number;
}

const DEFAULT_POLL_MS = 200;

/** What a worker's node reports on the way, read with the outcomes (they come before its `attempt/finished` in the log). */
const REPORT_EVENT_TYPES = ['work/reported', 'budget/reached'] as const;

/**
 * The scheduler's side of dispatch: each attempt the scheduler starts becomes a job on the queue,
 * and its outcome is the `attempt/finished` a worker commits to the log. A node whose claim
 * expires without an outcome (the worker died) is put on the queue again; a worker that finished
 * while no scheduler was running (this one took the run over) is not asked twice.
 */
export class DispatchedAttempts implements RemoteAttempts {
  readonly #options: DispatchedAttemptsOptions;
  readonly #pending = new PendingResults();
  readonly #waiting = new Map<string, Waiter>();
  readonly #reportListeners = new Set<(events: readonly SessionEvent[]) => void>();
  #nextSeq = 1;
  #timer: NodeJS.Timeout | undefined;
  #stopListening: (() => Promise<void>) | undefined;
  #passing = false;
  #wakeQueued = false;
  /** The nodes whose jobs are being put on the queue (`#enqueueHandedOver`): a pass leaves them alone. */
  readonly #enqueuing = new Set<string>();
  /** What a wake-up during a pass asks for after it: nothing, the log only, or a whole pass. */
  #again: 'none' | 'log' | 'all' = 'none';

  constructor(options: DispatchedAttemptsOptions) {
    this.#options = options;
  }

  /** Reads what earlier schedulers left (results not yet recorded) and starts watching. */
  async open(): Promise<this> {
    await this.#refresh();
    if (this.#options.listenUrl !== undefined) {
      const { runId } = this.#options;
      // On the process's shared listening connection; a dropped one leaves the outcomes to the poll.
      this.#stopListening = await hearNotifications(this.#options.listenUrl, {
        onNotification: (message) => {
          if (message.channel === OUTCOMES_NOTIFY_CHANNEL && message.payload === runId) this.#schedule('log');
        },
        onLost: () => undefined,
      }, [OUTCOMES_NOTIFY_CHANNEL]);
    }
    this.#timer = setInterval(() => this.wake(), this.#options.pollMs ?? DEFAULT_POLL_MS);
    this.#timer.unref();
    return this;
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.#stopListening?.();
  }

  onReports(listener: (events: readonly SessionEvent[]) => void): () => void {
    this.#reportListeners.add(listener);
    return () => this.#reportListeners.delete(listener);
  }

  /** The poll timer ticked (or a caller asks): one pass over every waiting node. */
  wake(): void {
    this.#schedule('all');
  }

  /**
   * The nodes a step starts are handed over together: they go on the queue in one write once they
   * all are (the next turn of the event loop). A write that began with the first would queue it
   * alone, and the rest only after another.
   */
  #wakeOnceHandedOver(): void {
    if (this.#wakeQueued) return;
    this.#wakeQueued = true;
    setImmediate(() => {
      this.#wakeQueued = false;
      this.#enqueueHandedOver();
    });
  }

  /**
   * The nodes handed over and not yet on the queue, put there now: not after a pass or a read of
   * outcomes in flight (each hop of a dependent would wait for the reads a pass makes of the other
   * nodes). Nothing is read first: no worker can have claimed them yet. A node whose job cannot be
   * queued fails with the queue's error; a pass meanwhile leaves the nodes alone (their jobs may not
   * be there yet to be found: it would queue them again).
   */
  #enqueueHandedOver(): void {
    // A node whose outcome is already in the log (a worker committed it while no scheduler ran) gets it now.
    if ([...this.#waiting.keys()].some((nodeId) => this.#pending.has(nodeId))) this.#schedule('log');
    // Never on the queue, and no outcome in the log already (left by an earlier scheduler).
    const fresh = [...this.#waiting].filter(([nodeId, waiter]) => waiter.dispatches === 0 && !this.#pending.has(nodeId));
    if (fresh.length === 0) return;
    const jobs = fresh.map(([nodeId, waiter]) => this.#dispatch(nodeId, waiter, undefined));
    for (const [nodeId] of fresh) this.#enqueuing.add(nodeId);
    void this.#options.queue
      .enqueueNodes(jobs)
      .catch((error: unknown) => {
        for (const [nodeId, waiter] of fresh) {
          if (this.#waiting.get(nodeId) !== waiter) continue;
          this.#waiting.delete(nodeId);
          waiter.fail(error);
        }
      })
      .finally(() => fresh.forEach(([nodeId]) => this.#enqueuing.delete(nodeId)));
  }

  /** One pass at a time: `log` reads the new outcomes only (the run's log was appended to), `all` the queue and the claims too. */
  #schedule(what: 'log' | 'all'): void {
    if (this.#passing) {
      if (this.#again !== 'all') this.#again = what;
      return;
    }
    this.#passing = true;
    void (what === 'all' ? this.#pass() : this.#settle())
      .catch((error: unknown) => {
        for (const waiter of this.#waiting.values()) waiter.fail(error);
        this.#waiting.clear();
      })
      .finally(() => {
        this.#passing = false;
        const again = this.#again;
        this.#again = 'none';
        if (again !== 'none') this.#schedule(again);
      });
  }

  async execute(nodeId: string, execution: NodeExecution & { readonly planVersion: number }): Promise<NodeOutcome<NodeResult>> {
    // The node goes on the queue while its `node/started` is being stored, not after: a worker
    // that claims it before that write commits waits for it (`executeNodeJob`), and its outcome
    // can only come after.
    let waiter: Waiter | undefined;
    const outcome = new Promise<NodeOutcome<NodeResult>>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.#waiting.get(nodeId) !== waiter) return;
        this.#waiting.delete(nodeId);
        resolve({ status: 'failed', error: 'cancelled while a worker ran it', retryable: false });
      };
      waiter = {
        attempt: execution.attempt,
        dispatchedAtToken: undefined,
        dispatches: 0,
        done: (result) => {
          execution.signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
        fail: (error) => {
          execution.signal.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      };
      this.#waiting.set(nodeId, waiter);
      execution.signal.addEventListener('abort', onAbort, { once: true });
      this.#wakeOnceHandedOver();
    });
    // Failed while the write is awaited: the caller hears it from `outcome`, after the write.
    outcome.catch(() => undefined);
    try {
      await execution.durable;
    } catch (error) {
      // Not stored: the attempt never began (a worker that took its job finds no `node/started` for it, and skips it).
      if (this.#waiting.get(nodeId) === waiter) this.#waiting.delete(nodeId);
      throw error;
    }
    return outcome;
  }

  /**
   * Claims first, then the log: a worker releases its claim no sooner than its outcome commits
   * (in the same statement, or after), so a released claim seen here means its outcome is in the
   * log read next. A node whose claim is neither alive nor still waiting in the queue (its worker
   * died, or its job is gone) goes on the queue again.
   */
  async #pass(): Promise<void> {
    const { db, runId, queue } = this.#options;
    // The nodes on the queue whose jobs are written: those not yet there are the hand-over's
    // (`#enqueueHandedOver`, this turn or the next), and a job being written may not be found yet.
    const nodeIds = [...this.#waiting].filter(([nodeId, waiter]) => waiter.dispatches > 0 && !this.#enqueuing.has(nodeId)).map(([nodeId]) => nodeId);
    if (nodeIds.length === 0) return;
    // The queue before the claims: a job gone or locked here was claimed, if at all, before the claims are read.
    const queued = nodeIds.flatMap((nodeId) => this.#waiting.get(nodeId)?.dispatchKey ?? []);
    const jobs = await queue.lockedSince(queued);
    const claims = await readNodeClaims(db, runId, nodeIds);
    await this.#settle();
    const enqueued: NodeJob[] = [];
    for (const nodeId of nodeIds) {
      const waiter = this.#waiting.get(nodeId);
      if (waiter === undefined) continue;
      const claim = claims.get(nodeId);
      const token = claim?.token ?? 0;
      // Its last job still stands for it unless a worker claimed the node since (a higher token: that worker died, its claim not alive).
      const unclaimedSince = waiter.dispatchedAtToken === undefined || token === waiter.dispatchedAtToken;
      const inQueue = unclaimedSince && this.#stillQueued(waiter, jobs);
      if (claim?.alive === true || inQueue) continue;
      enqueued.push(this.#dispatch(nodeId, waiter, token));
    }
    // The nodes of one pass go on the queue in one write (a wide stage is not queued one by one).
    await queue.enqueueNodes(enqueued);
  }

  /** The node's next job; `token`: its claim's token now, when known. */
  #dispatch(nodeId: string, waiter: Waiter, token: number | undefined): NodeJob {
    const { runId } = this.#options;
    waiter.dispatches += 1;
    waiter.dispatchedAtToken = token;
    waiter.dispatchKey = `${nodeJobKeyPrefix(runId, nodeId)}${waiter.attempt}:${token ?? 'new'}:${waiter.dispatches}`;
    return { runId, nodeId, attempt: waiter.attempt, dispatchKey: waiter.dispatchKey };
  }

  /** Reads the new outcomes, and hands each waiting node its own. */
  async #settle(): Promise<void> {
    await this.#refresh();
    for (const [nodeId, waiter] of this.#waiting) {
      const finished = this.#pending.get(nodeId);
      if (finished === undefined) continue;
      this.#pending.delete(nodeId);
      this.#waiting.delete(nodeId);
      if (this.#options.accept === undefined) waiter.done(outcomeOf(finished));
      else this.#options.accept(nodeId, finished).then(waiter.done, waiter.fail);
    }
  }

  /**
   * The node's last job still stands for it: waiting in the queue, or taken by a worker that has
   * not had the grace to claim the node yet. One gone without a claim, or locked longer than that
   * (its worker died between taking the job and claiming the node), does not.
   */
  #stillQueued(waiter: Waiter, jobs: ReadonlyMap<string, Date | null>): boolean {
    if (waiter.dispatchKey === undefined || !jobs.has(waiter.dispatchKey)) return false;
    const lockedAt = jobs.get(waiter.dispatchKey);
    return lockedAt === null || lockedAt === undefined || Date.now() - lockedAt.getTime() < (this.#options.lockedJobGraceMs ?? DEFAULT_NODE_CLAIM_TTL_MS);
  }

  /**
   * New `attempt/finished` and outcome events since the last read, and the workers' reports among
   * them, which go to the report listeners before any outcome is handed over.
   */
  async #refresh(): Promise<void> {
    const events = await readEvents(this.#options.db, this.#options.runId, { types: [...PENDING_RESULT_EVENT_TYPES, ...REPORT_EVENT_TYPES], fromSeq: this.#nextSeq });
    const reports = events.filter((event) => (REPORT_EVENT_TYPES as readonly string[]).includes(event.type));
    if (reports.length > 0) for (const listener of this.#reportListeners) listener(reports);
    this.#pending.fold(events);
    if (events.length > 0) this.#nextSeq = events.at(-1)!.seq + 1;
  }
}

interface Waiter {
  readonly attempt: number;
  /**
   * The node's claim token when it was last put on the queue (undefined when not read: put on the
   * queue as it was handed over): a higher dead token means the worker that took it died.
   */
  dispatchedAtToken: number | undefined;
  /** The key of its last job on the queue. */
  dispatchKey?: string;
  dispatches: number;
  done(outcome: NodeOutcome<NodeResult>): void;
  fail(error: unknown): void;
}

/** A worker's committed outcome, as the scheduler records it. */
export function outcomeOf(finished: SessionEvent<'attempt/finished'>): NodeOutcome<NodeResult> {
  const { payload } = finished;
  if (payload.outcome === 'succeeded') return { status: 'succeeded', result: { answer: payload.answer ?? '', filesChanged: payload.filesChanged ?? [] } };
  const waitsFor = payload.waitsFor === undefined ? {} : { waitsFor: payload.waitsFor };
  return { status: 'failed', error: payload.error ?? 'the node failed on a worker', ...(payload.retryable === undefined ? {} : { retryable: payload.retryable }), ...waitsFor };
}
