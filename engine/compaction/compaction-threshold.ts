/** Room kept free for the summary a compaction writes (SPEC §5.1). */
export const COMPACTION_SUMMARY_RESERVE_TOKENS = 20_000;
/** Room kept free for the conversation that follows a compaction (SPEC §5.1). */
export const COMPACTION_FOLLOW_UP_RESERVE_TOKENS = 13_000;
/** Share of the threshold at which a candidate summary starts in the background. */
export const DEFAULT_SOFT_WATERMARK_RATIO = 0.7;

export interface ThresholdOverrides {
  /** Upper bound of the summary reserve; the reserve is min(this, window / 4). */
  readonly summaryReserveTokens?: number;
  /** Upper bound of the follow-up reserve; the reserve is min(this, window / 8). */
  readonly followUpReserveTokens?: number;
  /** Soft watermark as a share of the threshold, in (0, 1]. */
  readonly softWatermarkRatio?: number;
}

export interface CompactionThresholds {
  readonly window: number;
  /** At or above this many tokens a node compacts before its next model call. */
  readonly threshold: number;
  /** At or above this many tokens a candidate summary may be computed in the background. */
  readonly softWatermark: number;
}

/**
 * `window − min(20K, window/4) − min(13K, window/8)`: 167K for a 200K window. The first reserve
 * leaves room for the summary, the second for the conversation that follows.
 */
export function compactionThreshold(window: number, overrides: ThresholdOverrides = {}): number {
  if (!Number.isFinite(window) || window <= 0) throw new RangeError(`context window must be a positive number of tokens, got ${window}`);
  const summaryReserve = Math.min(overrides.summaryReserveTokens ?? COMPACTION_SUMMARY_RESERVE_TOKENS, window / 4);
  const followUpReserve = Math.min(overrides.followUpReserveTokens ?? COMPACTION_FOLLOW_UP_RESERVE_TOKENS, window / 8);
  return Math.floor(window - summaryReserve - followUpReserve);
}

/** The threshold and the soft watermark (70 % of the threshold unless overridden) of a window. */
export function compactionThresholds(window: number, overrides: ThresholdOverrides = {}): CompactionThresholds {
  const ratio = overrides.softWatermarkRatio ?? DEFAULT_SOFT_WATERMARK_RATIO;
  if (!(ratio > 0 && ratio <= 1)) throw new RangeError(`soft watermark ratio must be in (0, 1], got ${ratio}`);
  const threshold = compactionThreshold(window, overrides);
  return { window, threshold, softWatermark: Math.round(threshold * ratio) };
}
