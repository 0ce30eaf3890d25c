import type { NodeState, Ticket } from './node-state.js';
import type { ScheduleRunner } from './schedule-runner.js';
import { WriteLocks } from './write-locks.js';

/**
 * The way from ready to the runner: a ready node's ticket waits here until its write locks are
 * free, then queues in the runner for a slot. Locks are let go when an attempt settles or a node
 * is withdrawn; the waiting tickets then try again, at the end of the loop's step.
 */
export class LockGate<R> {
  readonly #locks = new WriteLocks();
  readonly #runner: ScheduleRunner<R, Ticket<R>>;
  /** `false`: every ticket goes straight to the runner (nodes in their own workspaces hold no locks). */
  readonly #lockWrites: boolean;
  #waiting: Ticket<R>[] = [];
  #freed = false;

  constructor(runner: ScheduleRunner<R, Ticket<R>>, lockWrites = true) {
    this.#runner = runner;
    this.#lockWrites = lockWrites;
  }

  /** Queues the ticket in the runner (by the node's rank) once its write locks are free; it runs only when its start is granted. */
  enqueue(ticket: Ticket<R>): void {
    const { node } = ticket.state;
    if (this.#locks.tryAcquire(node.id, this.#lockWrites ? node.writes : [])) this.#runner.enqueue(node.id, ticket, ticket.state.rank);
    else this.#waiting.push(ticket);
  }

  /** Invalidates the node's outstanding ticket and frees its locks. */
  withdraw(state: NodeState<R>): void {
    state.token += 1;
    this.release(state);
  }

  release(state: NodeState<R>): void {
    if (this.#locks.release(state.node.id)) this.#freed = true;
  }

  /** When locks were let go since the last call: every waiting ticket that is still current tries again (none while `stopping`). */
  retryWaiting(stopping: boolean): void {
    if (!this.#freed) return;
    this.#freed = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const ticket of waiting) {
      if (stopping || ticket.token !== ticket.state.token || ticket.state.status !== 'ready') continue;
      this.enqueue(ticket);
    }
  }

  /** Forgets every waiting ticket (the schedule stops). */
  dropWaiting(): void {
    this.#waiting = [];
  }
}
