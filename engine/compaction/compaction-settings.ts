import type { ModelParameters, Usage } from '../model/index.js';
import { createCompactionId } from './compaction-id.js';
import { COMPACTION_SUMMARY_RESERVE_TOKENS, compactionThresholds, type ThresholdOverrides } from './compaction-threshold.js';
import { PRUNE_MIN_TOKENS } from './prune.js';
import { DEFAULT_KEEP_TURNS } from './select-range.js';
import { DEFAULT_MAX_SUMMARY_ATTEMPTS, type Summarizer } from './summarizer.js';

/** Pruning stops once the request is under this share of the threshold. */
export const DEFAULT_PRUNE_TARGET_RATIO = 0.6;
/** Room for the summarize instruction and its tool-result index in the summarizer's request. */
const SUMMARY_INSTRUCTION_ALLOWANCE_TOKENS = 6_000;

/** Everything a compaction needs besides the surface, the trigger and the signal. */
export interface CompactionSettings {
  /** The node model's context window, in tokens. */
  readonly window: number;
  readonly summarize: Summarizer;
  /** Model named in the summarizer's request; the node's last request's model when omitted. */
  readonly model?: string;
  /** USD of the summarizer model's usage (the price table's row for it); summaries cost nothing without. */
  readonly price?: (usage: Usage) => number;
  readonly thresholds?: ThresholdOverrides;
  /** Most recent turns kept verbatim; 3 by default. */
  readonly keepTurns?: number;
  /** Pruning stops under this many request tokens; `DEFAULT_PRUNE_TARGET_RATIO` of the threshold by default. */
  readonly targetTokens?: number;
  /** Tool outputs smaller than this are never pruned. */
  readonly pruneMinTokens?: number;
  /** Summarizer calls per trigger; 2 by default. */
  readonly maxAttempts?: number;
  /** Parameters of the summarizer's request; by default its output is capped at the summary reserve. */
  readonly summaryParameters?: ModelParameters;
  readonly createId?: () => string;
}

export interface ResolvedCompactionSettings {
  readonly window: number;
  readonly summarize: Summarizer;
  readonly model: string | undefined;
  readonly price: ((usage: Usage) => number) | undefined;
  readonly threshold: number;
  readonly softWatermark: number;
  readonly targetTokens: number;
  readonly keepTurns: number;
  readonly pruneMinTokens: number;
  readonly maxAttempts: number;
  readonly summaryParameters: ModelParameters;
  readonly summaryReserveTokens: number;
  readonly createId: () => string;
}

export function resolveCompactionSettings(settings: CompactionSettings): ResolvedCompactionSettings {
  const { threshold, softWatermark } = compactionThresholds(settings.window, settings.thresholds);
  const summaryReserveTokens = Math.floor(Math.min(settings.thresholds?.summaryReserveTokens ?? COMPACTION_SUMMARY_RESERVE_TOKENS, settings.window / 4));
  return {
    window: settings.window,
    summarize: settings.summarize,
    model: settings.model,
    price: settings.price,
    threshold,
    softWatermark,
    targetTokens: settings.targetTokens ?? Math.floor(threshold * DEFAULT_PRUNE_TARGET_RATIO),
    keepTurns: settings.keepTurns ?? DEFAULT_KEEP_TURNS,
    pruneMinTokens: settings.pruneMinTokens ?? PRUNE_MIN_TOKENS,
    maxAttempts: settings.maxAttempts ?? DEFAULT_MAX_SUMMARY_ATTEMPTS,
    summaryParameters: settings.summaryParameters ?? { maxOutputTokens: summaryReserveTokens },
    summaryReserveTokens,
    createId: settings.createId ?? createCompactionId,
  };
}

/**
 * The most region tokens the summarizer can read: its window less the prompt, the pinned
 * messages, the summary it writes and the instruction.
 */
export function summarizerBudget(settings: ResolvedCompactionSettings, overheadTokens: number, pinnedTokens: number): number {
  const allowance = Math.min(SUMMARY_INSTRUCTION_ALLOWANCE_TOKENS, Math.floor(settings.window / 16));
  return Math.max(0, settings.window - overheadTokens - pinnedTokens - settings.summaryReserveTokens - allowance);
}
