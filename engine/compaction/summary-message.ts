import type { SeqRange } from './summary-prompt.js';

export interface FrameSummaryInput {
  readonly compactionId: string;
  readonly covered: SeqRange;
  readonly summary: string;
}

/**
 * The text of the message that stands in for a compacted region: which seqs it replaces, how to
 * read them back, then the summary.
 */
export function frameSummary(input: FrameSummaryInput): string {
  const { compactionId, covered } = input;
  return [
    `<compaction-summary id="${compactionId}" covers="seq ${covered.start}-${covered.end}">`,
    `The conversation before this point (events seq ${covered.start}–${covered.end} of this node's log) was compacted into the summary below. ` +
      `The original events are kept: call recall_history with compaction_id "${compactionId}", a seq, or from_seq/to_seq to read any of them verbatim.`,
    '',
    input.summary.trim(),
    '</compaction-summary>',
  ].join('\n');
}
