/**
 * A worker's claims go ahead of its nodes' work. A wide stage reaches a worker as many jobs at
 * once; a job that claimed its node waits, before its node's work, for the claims that were in
 * flight when it got there. Otherwise each claim's round trips queue behind the other nodes' work
 * for the worker's one thread and its store connections, and the last node of a stage of 30 is
 * claimed (and reported as taken) hundreds of milliseconds late. Claims that start later do not
 * hold up work that waits already, so no node's work waits on a stream of new jobs.
 */
export class ClaimsFirst {
  readonly #inFlight = new Set<Promise<void>>();

  /** Marks a claim as in flight; call the returned function once it is done (claimed or not). */
  begin(): () => void {
    let done!: () => void;
    const claim = new Promise<void>((resolve) => (done = resolve));
    this.#inFlight.add(claim);
    return () => {
      this.#inFlight.delete(claim);
      done();
    };
  }

  /** Resolves once the claims in flight now are done. */
  async settled(): Promise<void> {
    if (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }
}
