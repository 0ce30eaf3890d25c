import type { AmendOutcome, Replan, ScheduleOptions, ScheduleResult, ScheduleSnapshot } from './schedule-options.js';
import { ScheduleLoop } from './schedule-loop.js';

/** A running schedule. */
export interface ScheduleHandle<R = unknown> {
  /**
   * Settles when nothing runs any more: resolves with every node's final status and attempts
   * (also when nodes failed or the run was cancelled); rejects only when `onTransitions` or
   * `onNodeFailed` threw, after every running attempt has been aborted and has returned.
   */
  readonly result: Promise<ScheduleResult<R>>;
  /**
   * Holds dispatch at once (running attempts go on, nothing new starts), hands `replan` a
   * snapshot, applies the amendment it returns, and lets dispatch go on. Amendments run one at a
   * time. Rejects with `ScheduleInputError` or `ScheduleAmendError` (the schedule then goes on
   * unchanged); `closed` when the schedule ended or was cancelled first.
   */
  amend(replan: Replan): Promise<AmendOutcome>;
  snapshot(): ScheduleSnapshot;
}

/**
 * Starts running `options.nodes` in dependency order through a bounded queue; see
 * `ScheduleOptions`. Throws `ScheduleInputError` at once when the nodes are not a runnable DAG.
 */
export function startSchedule<R = unknown>(options: ScheduleOptions<R>): ScheduleHandle<R> {
  const loop = new ScheduleLoop(options);
  return {
    result: loop.result,
    amend: (replan) => loop.amend(replan),
    snapshot: () => loop.snapshot(),
  };
}

/** `startSchedule(options).result`, for callers that never amend. */
export function runSchedule<R = unknown>(options: ScheduleOptions<R>): Promise<ScheduleResult<R>> {
  return startSchedule(options).result;
}
