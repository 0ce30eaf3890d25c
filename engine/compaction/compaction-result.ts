import type { COMPACTION_TRIGGERS } from '../session/index.js';
import type { Usage } from '../model/index.js';
import type { SeqRange } from './summary-prompt.js';
import type { SurvivalFact } from './survival-check.js';

/** What started a compaction. */
export type CompactionTrigger = (typeof COMPACTION_TRIGGERS)[number];

export type CompactionSkipReason =
  /** Another compaction of this surface is running. */
  | 'in-progress'
  /** The signal was aborted before anything was written. */
  | 'aborted'
  /** Too few turns before the kept ones, nothing worth pruning. */
  | 'nothing-to-compact'
  /** The oldest turn alone is too large for the summarizer and holds nothing to prune. */
  | 'region-too-large'
  /** Every candidate boundary would split a tool call from its result. */
  | 'unsplittable';

/**
 * How a compaction ended. Orchestrators return this instead of throwing: a failed or discarded
 * compaction leaves the surface as it was.
 */
export type CompactionResult =
  | {
      readonly outcome: 'committed';
      readonly compactionId: string;
      readonly trigger: CompactionTrigger;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      /** Surface positions the summary replaced. */
      readonly covered: SeqRange;
      readonly summarySeq: number;
      /** The seq of the `user/message` holding the framed summary. */
      readonly messageSeq: number;
      readonly attempts: number;
      /** Facts the summarizer kept losing, appended to the summary as a list. */
      readonly appendedFacts: readonly SurvivalFact[];
      readonly usage?: Usage;
    }
  | {
      readonly outcome: 'pruned';
      readonly compactionId: string;
      readonly trigger: CompactionTrigger;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      /** Seqs of the tool results replaced by placeholders. */
      readonly prunedSeqs: readonly number[];
    }
  | {
      readonly outcome: 'discarded';
      readonly compactionId: string;
      readonly trigger: CompactionTrigger;
      readonly reason: 'surface-changed' | 'not-smaller' | 'not-needed';
      readonly tokensBefore: number;
    }
  | { readonly outcome: 'skipped'; readonly trigger: CompactionTrigger; readonly reason: CompactionSkipReason; readonly tokens: number }
  | {
      readonly outcome: 'failed';
      readonly compactionId: string;
      readonly trigger: CompactionTrigger;
      readonly error: string;
      readonly tokensBefore: number;
      readonly attempts: number;
    };

/** True when the surface is smaller than before: a summary or placeholders were committed. */
export function isCompacted(result: CompactionResult): result is Extract<CompactionResult, { outcome: 'committed' | 'pruned' }> {
  return result.outcome === 'committed' || result.outcome === 'pruned';
}
