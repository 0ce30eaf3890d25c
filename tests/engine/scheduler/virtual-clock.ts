import { setImmediate as nextMacrotask } from 'node:timers/promises';

interface Timer {
  readonly at: number;
  readonly order: number;
  readonly resolve: () => void;
}

/**
 * Time that moves only when `run` finds nothing else to do: every pending promise settles first,
 * then the clock jumps to the earliest timer. No wall-clock time is involved.
 */
export class VirtualClock {
  now = 0;
  #timers: Timer[] = [];
  #order = 0;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = (): void => {
        this.#timers = this.#timers.filter((other) => other !== timer);
        reject(signal?.reason);
      };
      const timer: Timer = {
        at: this.now + ms,
        order: this.#order++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.#timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  /** Drives `promise` to completion; throws when it waits on nothing the clock controls. */
  async run<T>(promise: Promise<T>, options: { maxSteps?: number; onIdle?: (now: number) => void } = {}): Promise<T> {
    let settled = false;
    promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let steps = 0; steps < (options.maxSteps ?? 100_000); steps += 1) {
      await settleWork();
      if (settled) return promise;
      options.onIdle?.(this.now);
      if (this.#timers.length === 0) {
        await settleWork();
        if (settled) return promise;
        throw new Error(`stalled at t=${this.now}: nothing scheduled and the promise is pending`);
      }
      this.#fire();
    }
    throw new Error('too many clock steps');
  }

  #fire(): void {
    let earliest = this.#timers[0]!;
    for (const timer of this.#timers) if (timer.at < earliest.at || (timer.at === earliest.at && timer.order < earliest.order)) earliest = timer;
    this.now = Math.max(this.now, earliest.at);
    const due = this.#timers.filter((timer) => timer.at <= this.now).sort((a, b) => a.order - b.order);
    this.#timers = this.#timers.filter((timer) => timer.at > this.now);
    for (const timer of due) timer.resolve();
  }
}

/**
 * Turns of the event loop that let pending work settle before time moves: a log append on SQLite
 * waits for the turn it was made in to end (its group commit), and a node's steps chain several.
 */
async function settleWork(): Promise<void> {
  for (let turn = 0; turn < SETTLING_TURNS; turn += 1) await nextMacrotask();
}

const SETTLING_TURNS = 30;
