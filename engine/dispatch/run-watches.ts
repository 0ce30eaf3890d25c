import { errorMessage } from '../errors.js';
import { readEvents } from '../session/event-log.js';
import type { SessionEvent } from '../session/event-types.js';
import { followRun, type FollowedStore, type RunFollower } from '../session/follow-run.js';

/** A node attempt's hold on its run's watch: `signal` aborts when the run is asked to cancel (or ends under it). */
export interface RunWatch {
  readonly signal: AbortSignal;
  leave(): void;
}

export interface RunWatchesOptions {
  readonly store: FollowedStore;
  /**
   * A run this worker ran nodes of has ended (succeeded, failed, cancelled, paused for review) and
   * no node of it runs here any more: let go of what the worker holds for it (MCP servers,
   * language services, a workspace watch). A resumed run gets them afresh.
   */
  readonly onRunEnded?: (runId: string) => Promise<void>;
  readonly report?: (line: string) => void;
  /** How long a watch whose follower could not open waits before it tries again (ms; doubled each time, to 30 s); default 1 s. */
  readonly followRetryMs?: number;
}

/** The first pause before a failed follower is tried again, and the longest. */
const FOLLOW_RETRY_MS = 1_000;
const MAX_FOLLOW_RETRY_MS = 30_000;

const RUN_END_EVENT_TYPES: ReadonlySet<string> = new Set(['run/succeeded', 'run/failed', 'run/cancelled', 'run/paused']);
/** What a watch reads of its run: the rest (the nodes' messages, tool calls, every worker's appends) is not shipped to it. */
const WATCHED_EVENT_TYPES = ['run/cancel-requested', 'run/succeeded', 'run/failed', 'run/cancelled', 'run/paused'] as const;

interface WatchedRun {
  readonly runId: string;
  readonly cancel: AbortController;
  readonly stopFollowing: AbortController;
  follower: Promise<RunFollower | undefined>;
  active: number;
  ended: boolean;
  /** Tries of its follower that failed in a row. */
  failedFollows: number;
}

/**
 * A worker's view of the runs it works on: one follower of each run's log (PostgreSQL
 * LISTEN/NOTIFY) from its first node here until the run ends. A `run/cancel-requested` from any
 * process (a `dagent cancel` on another host, the scheduler's dashboard) aborts the run's nodes
 * running here at once, as a run that ends under them does; when the run has ended and its last
 * node here is done, the worker lets go of the run (`onRunEnded`).
 */
export class RunWatches {
  readonly #options: RunWatchesOptions;
  readonly #runs = new Map<string, WatchedRun>();
  #closed = false;

  constructor(options: RunWatchesOptions) {
    this.#options = options;
  }

  async enter(runId: string): Promise<RunWatch> {
    let run = this.#runs.get(runId);
    if (run === undefined) {
      run = { runId, cancel: new AbortController(), stopFollowing: new AbortController(), follower: Promise.resolve(undefined), active: 0, ended: false, failedFollows: 0 };
      this.#runs.set(runId, run);
      run.follower = this.#follow(run);
    }
    run.active += 1;
    await run.follower;
    const watched = run;
    let left = false;
    return {
      signal: watched.cancel.signal,
      leave: () => {
        if (left) return;
        left = true;
        watched.active -= 1;
        if (watched.ended && watched.active === 0) void this.#letGo(watched);
      },
    };
  }

  /** Stops following every run (the worker stops); what the runs hold is let go of by the caller. */
  async close(): Promise<void> {
    this.#closed = true;
    const runs = [...this.#runs.values()];
    this.#runs.clear();
    for (const run of runs) run.stopFollowing.abort();
    await Promise.all(runs.map(async (run) => (await run.follower)?.stop()));
  }

  /**
   * Follows from the log's end, then looks back once at what the run's latest start was followed
   * by before the follower listened: a cancel request, or the run's end (a watch that began just
   * after the run ended would otherwise hold the run until the worker stops).
   */
  async #follow(run: WatchedRun): Promise<RunFollower | undefined> {
    const { db } = this.#options.store;
    let follower: RunFollower | undefined;
    try {
      const last = await db.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).where('run_id', '=', run.runId).executeTakeFirst();
      const afterSeq = Number(last?.seq ?? 0);
      follower = await followRun(this.#options.store, run.runId, { afterSeq, types: WATCHED_EVENT_TYPES, signal: run.stopFollowing.signal, onEvents: (events) => this.#onEvents(run, events) });
      const control = await readEvents(db, run.runId, { types: ['run/started', ...WATCHED_EVENT_TYPES], toSeq: afterSeq });
      const latest = control.at(-1);
      if (latest !== undefined && latest.type !== 'run/started') this.#onEvents(run, [latest]);
      if (run.failedFollows > 0) this.#options.report?.(`run ${run.runId}: its log is followed again`);
      run.failedFollows = 0;
      return follower;
    } catch (error) {
      // A follower that opened before the look-back failed is stopped: the next try opens its own.
      await follower?.stop().catch(() => undefined);
      // Meanwhile the nodes still stop when their claims are taken over; the follower is tried
      // again (a store that failed for a moment must not leave the run held until the worker stops).
      if (run.failedFollows === 0) this.#options.report?.(`run ${run.runId}: its log cannot be followed (${errorMessage(error)}); trying again`);
      run.failedFollows += 1;
      this.#followAgain(run);
      return undefined;
    }
  }

  /** Tries the run's follower again after a pause that doubles with each failure, unless the run is let go of or the worker stops first. */
  #followAgain(run: WatchedRun): void {
    const pauseMs = Math.min((this.#options.followRetryMs ?? FOLLOW_RETRY_MS) * 2 ** (run.failedFollows - 1), MAX_FOLLOW_RETRY_MS);
    const timer = setTimeout(() => {
      run.stopFollowing.signal.removeEventListener('abort', cancel);
      if (!this.#closed && !run.stopFollowing.signal.aborted) run.follower = this.#follow(run);
    }, pauseMs);
    timer.unref();
    const cancel = (): void => clearTimeout(timer);
    run.stopFollowing.signal.addEventListener('abort', cancel, { once: true });
  }

  #onEvents(run: WatchedRun, events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (event.type === 'run/cancel-requested') {
        const { by } = (event as SessionEvent<'run/cancel-requested'>).payload;
        run.cancel.abort(new Error(`run ${run.runId} was cancelled${by === undefined ? '' : ` by ${by}`}`));
      } else if (RUN_END_EVENT_TYPES.has(event.type) && !run.ended) {
        run.ended = true;
        if (event.type !== 'run/succeeded') run.cancel.abort(new Error(`run ${run.runId} ended (${event.type.slice(4)}) while this node ran`));
        // A node that starts for the run from now on (it was resumed) watches it afresh.
        if (this.#runs.get(run.runId) === run) this.#runs.delete(run.runId);
        if (run.active === 0) void this.#letGo(run);
      }
    }
  }

  async #letGo(run: WatchedRun): Promise<void> {
    run.stopFollowing.abort();
    await (await run.follower)?.stop();
    if (this.#closed) return;
    if (this.#options.onRunEnded === undefined) return;
    await this.#options.onRunEnded(run.runId).then(
      () => this.#options.report?.(`run ${run.runId} is over: what this worker opened for it is closed`),
      (error: unknown) => this.#options.report?.(`run ${run.runId}: letting go of it failed: ${errorMessage(error)}`),
    );
  }
}
