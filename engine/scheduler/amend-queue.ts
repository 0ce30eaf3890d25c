import type { LoopInput } from './loop-input.js';
import { createScheduleGraph } from './schedule-graph.js';
import type { AmendOutcome, Replan, ScheduleSnapshot } from './schedule-options.js';

/** What the amend queue needs of its loop. */
export interface AmendHost<R> {
  /** The loop is cancelling, failing or closed. */
  stopping(): boolean;
  snapshot(): ScheduleSnapshot;
  /** Aborted when the schedule stops: the replan's signal. */
  readonly signal: AbortSignal;
  post(input: LoopInput<R>): void;
}

/**
 * Amendments, one at a time: each runs with a hold on dispatch already taken and always gives it
 * back (`release`); its amendment goes into the loop's inbox (`amend`), to be checked and applied
 * in a step. A failing failure hook stops the schedule; any other replan's error is its caller's.
 */
export class AmendQueue<R> {
  readonly #host: AmendHost<R>;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(host: AmendHost<R>) {
    this.#host = host;
  }

  queue(replan: Replan, fromFailureHook: boolean): Promise<AmendOutcome> {
    const run = this.#chain.then(() => this.#run(replan, fromFailureHook));
    this.#chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async #run(replan: Replan, fromFailureHook: boolean): Promise<AmendOutcome> {
    const host = this.#host;
    try {
      if (host.stopping()) return 'closed';
      const amendment = await replan(host.snapshot(), host.signal);
      if (host.stopping()) return 'closed';
      if (amendment === undefined) return 'unchanged';
      const graph = createScheduleGraph(amendment.nodes);
      return await new Promise<AmendOutcome>((resolve, reject) => {
        host.post({ kind: 'amend', amendment, graph, done: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)) });
      });
    } catch (error) {
      if (!fromFailureHook) throw error;
      host.post({ kind: 'fatal', error });
      return 'closed';
    } finally {
      host.post({ kind: 'release' });
    }
  }
}
