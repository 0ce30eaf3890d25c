import PQueue from 'p-queue';
import { errorMessage } from '../errors.js';
import type { ExecuteNode, NodeExecution, NodeOutcome } from './schedulable-node.js';

/** The loop's answer when a queued node reaches a slot: run this attempt, or step aside. */
export type StartDecision = { readonly kind: 'run'; readonly attempt: number; readonly durable: Promise<void> } | { readonly kind: 'withdraw' };

export interface ScheduleRunnerOptions<R, T> {
  readonly concurrency: number;
  readonly execute: ExecuteNode<R>;
  /** Handed to every attempt; aborted when the schedule is cancelled or fails. */
  readonly signal: AbortSignal;
  /** Asks the loop to start the node behind `ticket`; resolves once its start is decided and queued for storing. */
  readonly requestStart: (ticket: T) => Promise<StartDecision>;
  /** Reports how the attempt ended. */
  readonly settle: (ticket: T, outcome: NodeOutcome<R>) => void;
  /** A throw from our own task code: a bug. */
  readonly onBug: (error: unknown) => void;
}

/**
 * Executes node attempts through p-queue, at most `concurrency` at once, and nothing else: which
 * node runs when is decided by the loop. A task holds its slot from the start request to the end
 * of the attempt. The slots are counted here, not by p-queue, which would hand a slot an attempt
 * leaves to the task queued first before the loop has heard the outcome: here the dependents
 * that outcome makes ready wait beside the others, and the one of highest priority gets the slot
 * (equal ones in the order they came). A task queued into a free slot starts at once, so its
 * start request joins the loop's step.
 */
export class ScheduleRunner<R, T> {
  readonly #queue = new PQueue();
  readonly #options: ScheduleRunnerOptions<R, T>;
  /** Tasks waiting for a slot: highest priority first, then first come. */
  #waiting: Waiting<T>[] = [];
  #running = 0;
  #paused = false;

  constructor(options: ScheduleRunnerOptions<R, T>) {
    if (!(Number.isInteger(options.concurrency) && options.concurrency >= 1)) {
      throw new RangeError(`concurrency must be a whole number from 1, got ${options.concurrency}`);
    }
    this.#options = options;
  }

  /** Queues an attempt; of those waiting for a slot, the highest `priority` goes first (equal ones in turn). */
  enqueue(nodeId: string, ticket: T, priority: number): void {
    const waiting: Waiting<T> = { nodeId, ticket, priority };
    let at = this.#waiting.length;
    while (at > 0 && this.#waiting[at - 1]!.priority < priority) at -= 1;
    this.#waiting.splice(at, 0, waiting);
    this.#fill();
  }

  /** Stops starting queued tasks (running ones go on) until `resume`. */
  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#fill();
  }

  /** Drops tasks that have not reached a slot. */
  clear(): void {
    this.#waiting = [];
  }

  /** Starts waiting tasks, highest priority first, while slots are free. */
  #fill(): void {
    while (!this.#paused && this.#running < this.#options.concurrency && this.#waiting.length > 0) {
      const { nodeId, ticket } = this.#waiting.shift()!;
      this.#running += 1;
      // No signal for p-queue: on abort it would end the task while the attempt still runs.
      this.#queue.add(() => this.#run(nodeId, ticket)).then((outcome) => {
        this.#running -= 1;
        if (outcome !== undefined) this.#options.settle(ticket, outcome);
        // After the loop's step for the outcome (queued just now): its dependents compete for the slot too.
        queueMicrotask(() => this.#fill());
      }, this.#options.onBug);
    }
  }

  /** One task: waits for the loop's go-ahead, then runs the attempt; `undefined` when withdrawn. */
  async #run(nodeId: string, ticket: T): Promise<NodeOutcome<R> | undefined> {
    const decision = await this.#options.requestStart(ticket);
    if (decision.kind === 'withdraw') return undefined;
    return attemptNode(this.#options.execute, nodeId, { signal: this.#options.signal, attempt: decision.attempt, durable: decision.durable });
  }
}

interface Waiting<T> {
  readonly nodeId: string;
  readonly ticket: T;
  readonly priority: number;
}

/** One attempt; a throw or a malformed outcome becomes a retryable failure. */
async function attemptNode<R>(execute: ExecuteNode<R>, nodeId: string, execution: NodeExecution): Promise<NodeOutcome<R>> {
  try {
    const outcome = await execute(nodeId, execution);
    if (outcome?.status === 'succeeded' || outcome?.status === 'failed') return outcome;
    return { status: 'failed', error: `node "${nodeId}" returned no outcome` };
  } catch (error) {
    return { status: 'failed', error: errorMessage(error) };
  }
}
