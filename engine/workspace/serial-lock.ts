/**
 * Runs tasks one at a time, in the order they were given: what must never overlap (git's own
 * lock files in `.git`, moving the run branch) goes through one of these.
 */
export class SerialLock {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
