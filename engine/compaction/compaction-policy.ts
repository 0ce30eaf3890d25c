/** What the agent loop should do about context pressure before its next model call. */
export type CompactionVerdict = 'none' | 'background' | 'now';

/** Growth required after a compaction before the next one, at the least. */
export const MIN_COMPACTION_GROWTH_TOKENS = 1_000;
/** Growth required after a compaction before the next one, as a share of the threshold. */
export const COMPACTION_GROWTH_RATIO = 0.05;

export interface CompactionPressure {
  /** Estimated tokens of the next request (messages, system prompt and tools). */
  readonly tokens: number;
  readonly threshold: number;
  /** Where a background candidate may start; no background work when omitted. */
  readonly softWatermark?: number;
  /** Request tokens right after this surface's last compaction, if it had one. */
  readonly lastCompactionTokens?: number;
  /** Growth needed past `lastCompactionTokens`; `growthMargin(threshold)` when omitted. */
  readonly growthMarginTokens?: number;
  /** The provider just refused the request as too long. */
  readonly contextOverflow?: boolean;
  /** A background candidate is already being computed or waits to be committed. */
  readonly candidatePending?: boolean;
}

/** The default growth a surface needs after a compaction before the next one may run. */
export function growthMargin(threshold: number): number {
  return Math.max(MIN_COMPACTION_GROWTH_TOKENS, Math.round(threshold * COMPACTION_GROWTH_RATIO));
}

/**
 * The compaction trigger as a pure verdict. `now` at the threshold and after a context-overflow
 * error; `background` between the soft watermark and the threshold when no candidate is pending.
 * After a compaction nothing fires until the surface has really grown past its post-compaction
 * size: a compaction that could not get under the threshold must not run again every step.
 */
export function shouldCompact(pressure: CompactionPressure): CompactionVerdict {
  if (pressure.contextOverflow === true) return 'now';
  const margin = pressure.growthMarginTokens ?? growthMargin(pressure.threshold);
  const grown = pressure.lastCompactionTokens === undefined || pressure.tokens >= pressure.lastCompactionTokens + margin;
  if (!grown) return 'none';
  if (pressure.tokens >= pressure.threshold) return 'now';
  if (pressure.softWatermark !== undefined && pressure.tokens >= pressure.softWatermark && pressure.candidatePending !== true) return 'background';
  return 'none';
}
