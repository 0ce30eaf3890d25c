import type { NodeTransition } from './node-transition.js';

/**
 * Hands transitions to the store in the order they were decided, one call at a time: whatever
 * is submitted while a call is in flight goes, all of it, into the next call (a group commit).
 * Each submission gets a promise that settles when its transitions are stored. After a failed
 * call nothing more is written and every later submission rejects with the same error.
 */
export class TransitionWriter<R> {
  readonly #store: ((changes: readonly NodeTransition<R>[]) => Promise<void>) | undefined;
  #queued: NodeTransition<R>[] = [];
  #next: Deferred | undefined;
  #writing: Promise<void> | undefined;
  #failure: { readonly error: unknown } | undefined;
  /** The promise of the latest submission: it settles after every earlier one. */
  #last: Promise<void> = STORED;

  constructor(store: ((changes: readonly NodeTransition<R>[]) => Promise<void>) | undefined) {
    this.#store = store;
  }

  /**
   * Queues `changes` after everything submitted before; resolves once they (and all before them)
   * are stored. With no changes, it settles with the latest submission.
   */
  submit(changes: readonly NodeTransition<R>[]): Promise<void> {
    if (this.#store === undefined) return STORED;
    if (this.#failure !== undefined) return handled(Promise.reject(this.#failure.error));
    if (changes.length === 0) return this.#last;
    for (const change of changes) this.#queued.push(change);
    this.#next ??= deferred();
    this.#writing ??= this.#drain();
    this.#last = this.#next.promise;
    return this.#last;
  }

  /** The error of the write that failed, once one has. */
  get failure(): { readonly error: unknown } | undefined {
    return this.#failure;
  }

  /** Settles when everything submitted so far is stored; rejects with the failure, if one happened. */
  async idle(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  async #drain(): Promise<void> {
    // Starts after the submitter's synchronous work (the starts it grants), in the same task.
    await STORED;
    while (this.#queued.length > 0) {
      const batch = this.#queued;
      const done = this.#next!;
      this.#queued = [];
      this.#next = undefined;
      try {
        await this.#store!(batch);
        done.resolve();
      } catch (error) {
        this.#failure = { error };
        done.reject(error);
        // Submitted during the failed write: never stored either.
        (this.#next as Deferred | undefined)?.reject(error);
        this.#queued = [];
        this.#next = undefined;
      }
    }
    this.#writing = undefined;
  }
}

const STORED: Promise<void> = Promise.resolve();

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = handled(
    new Promise<void>((onResolve, onReject) => {
      resolve = onResolve;
      reject = onReject;
    }),
  );
  return { promise, resolve, reject };
}

/** A node may never look at its promise; its rejection is reported through the schedule instead. */
function handled(promise: Promise<void>): Promise<void> {
  promise.catch(() => undefined);
  return promise;
}
