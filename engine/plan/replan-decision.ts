/** Below this share of succeeded nodes, the plan was badly off: plan again from scratch. */
export const REPLAN_PROGRESS_THRESHOLD = 0.5;
export const MAX_REPLANS = 3;

export type ReplanDecision = 'full' | 'append' | 'give-up';

export interface ReplanInput {
  readonly succeeded: number;
  readonly total: number;
  readonly replansSoFar: number;
  readonly threshold?: number;
  readonly maxReplans?: number;
}

/**
 * The replanning rule (SPEC §2.5): no replans left → `give-up`; progress (succeeded / total)
 * below the threshold → `full` replan; at or above it → `append` nodes and rewire.
 */
export function replanDecision(input: ReplanInput): ReplanDecision {
  const { succeeded, total, replansSoFar } = input;
  if (!(total >= 0 && succeeded >= 0 && succeeded <= total && replansSoFar >= 0)) {
    throw new RangeError(`replanDecision: impossible counts (succeeded ${succeeded}, total ${total}, replans ${replansSoFar})`);
  }
  if (replansSoFar >= (input.maxReplans ?? MAX_REPLANS)) return 'give-up';
  const progress = total === 0 ? 0 : succeeded / total;
  return progress < (input.threshold ?? REPLAN_PROGRESS_THRESHOLD) ? 'full' : 'append';
}
