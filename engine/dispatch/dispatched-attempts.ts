import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { NodeResult, RemoteAttempts } from '../run/run-controller.js';
import type { NodeExecution, NodeOutcome } from '../scheduler/schedulable-node.js';
import { readEvents } from '../session/event-log.js';
import type { SessionEvent } from '../session/event-types.js';
import type { JobQueue } from './job-queue.js';
import { readNodeClaim } from './node-claim.js';
import { PENDING_RESULT_EVENT_TYPES, pendingResults } from './pending-results.js';

export interface DispatchedAttemptsOptions {
  readonly db: Kysely<Database>;
  readonly runId: string;
  readonly queue: JobQueue;
  /** How often the log and the claims are looked at when no wake-up came (ms). */
  readonly pollMs?: number;
  /**
   * A worker's success, before the scheduler records it (clone mode: apply the node's patch to the
   * user's workspace). Returns the outcome to record.
   */
  readonly accept?: (nodeId: string, finished: SessionEvent<'attempt/finished'>) => Promise<NodeOutcome<NodeResult>>;
}

const DEFAULT_POLL_MS = 200;

/**
 * The scheduler's side of dispatch: each attempt the scheduler starts becomes a job on the queue,
 * and its outcome is the `attempt/finished` a worker commits to the log. A node whose claim
 * expires without an outcome (the worker died) is put on the queue again; a worker that finished
 * while no scheduler was running (this one took the run over) is not asked twice.
 */
export class DispatchedAttempts implements RemoteAttempts {
  readonly #options: DispatchedAttemptsOptions;
  readonly #pending = new Map<string, SessionEvent<'attempt/finished'>>();
  readonly #waiters = new Set<() => void>();
  #nextSeq = 1;
  #reading: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: DispatchedAttemptsOptions) {
    this.#options = options;
  }

  /** Reads what earlier schedulers left (results not yet recorded) and starts watching. */
  async open(): Promise<this> {
    await this.#refresh();
    this.#timer = setInterval(() => this.wake(), this.#options.pollMs ?? DEFAULT_POLL_MS);
    this.#timer.unref();
    return this;
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.wake();
  }

  /** A worker committed something (its wake-up job), or the poll timer ticked. */
  wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  async execute(nodeId: string, execution: NodeExecution & { readonly planVersion: number }): Promise<NodeOutcome<NodeResult>> {
    const { db, runId, queue } = this.#options;
    await execution.durable;
    let dispatchedAtToken: number | undefined;
    let dispatches = 0;
    for (;;) {
      // The claim first, then the log: a worker commits its outcome before it releases its claim,
      // so a released claim seen here means its outcome is in the log read next.
      const claim = await readNodeClaim(db, runId, nodeId);
      await this.#refresh();
      const finished = this.#pending.get(nodeId);
      if (finished !== undefined) {
        this.#pending.delete(nodeId);
        return this.#options.accept === undefined ? outcomeOf(finished) : this.#options.accept(nodeId, finished);
      }
      if (execution.signal.aborted) return { status: 'failed', error: 'cancelled while a worker ran it', retryable: false };
      const token = claim?.token ?? 0;
      const waitingForQueue = dispatchedAtToken !== undefined && token === dispatchedAtToken;
      if (claim?.alive !== true && !waitingForQueue) {
        dispatches += 1;
        dispatchedAtToken = token;
        await queue.enqueueNode({ runId, nodeId, attempt: execution.attempt, dispatchKey: `${runId}:${nodeId}:${execution.attempt}:${token}:${dispatches}` });
      }
      await this.#nextWake(execution.signal);
    }
  }

  #nextWake(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.#waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * New `attempt/finished` and outcome events since the last read. Reads are chained, never
   * shared: each caller's read starts after its call, so it sees every commit made before it.
   */
  #refresh(): Promise<void> {
    const read = async (): Promise<void> => {
      const events = await readEvents(this.#options.db, this.#options.runId, { types: PENDING_RESULT_EVENT_TYPES, fromSeq: this.#nextSeq });
      pendingResults(events, this.#pending);
      if (events.length > 0) this.#nextSeq = events.at(-1)!.seq + 1;
    };
    const next = this.#reading.then(read, read);
    this.#reading = next.catch(() => undefined);
    return next;
  }
}

/** A worker's committed outcome, as the scheduler records it. */
export function outcomeOf(finished: SessionEvent<'attempt/finished'>): NodeOutcome<NodeResult> {
  const { payload } = finished;
  if (payload.outcome === 'succeeded') return { status: 'succeeded', result: { answer: payload.answer ?? '', filesChanged: payload.filesChanged ?? [] } };
  return { status: 'failed', error: payload.error ?? 'the node failed on a worker', ...(payload.retryable === undefined ? {} : { retryable: payload.retryable }) };
}
