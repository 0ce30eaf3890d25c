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
 * Executes node attempts through p-queue with the concurrency limit, and nothing else: which
 * node runs when is decided by the loop. A task holds its slot from the start request to the
 * end of the attempt, so at most `concurrency` attempts ever run at once.
 */
export class ScheduleRunner<R, T> {
  readonly #queue: PQueue;
  readonly #options: ScheduleRunnerOptions<R, T>;

  constructor(options: ScheduleRunnerOptions<R, T>) {
    if (!(Number.isInteger(options.concurrency) && options.concurrency >= 1)) {
      throw new RangeError(`concurrency must be a whole number from 1, got ${options.concurrency}`);
    }
    this.#options = options;
    this.#queue = new PQueue({ concurrency: options.concurrency });
  }

  enqueue(nodeId: string, ticket: T): void {
    // No signal for p-queue: on abort it would free the slot while the attempt still runs.
    // The outcome is reported from the settled task, so its slot is free again by the time the
    // loop reacts and a dependent can start in the same step.
    this.#queue.add(() => this.#run(nodeId, ticket)).then((outcome) => {
      if (outcome !== undefined) this.#options.settle(ticket, outcome);
    }, this.#options.onBug);
  }

  /** Stops starting queued tasks (running ones go on) until `resume`. */
  pause(): void {
    this.#queue.pause();
  }

  resume(): void {
    this.#queue.start();
  }

  /** Drops tasks that have not reached a slot. */
  clear(): void {
    this.#queue.clear();
  }

  /** One task: waits for the loop's go-ahead, then runs the attempt; `undefined` when withdrawn. */
  async #run(nodeId: string, ticket: T): Promise<NodeOutcome<R> | undefined> {
    const decision = await this.#options.requestStart(ticket);
    if (decision.kind === 'withdraw') return undefined;
    return attemptNode(this.#options.execute, nodeId, { signal: this.#options.signal, attempt: decision.attempt, durable: decision.durable });
  }
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
