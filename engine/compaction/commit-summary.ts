import { estimateMessageTokens } from '../model/index.js';
import type { Session } from '../session/index.js';
import type { CompactionResult } from './compaction-result.js';
import { nodeDraft } from './node-draft.js';
import type { RegionSummary } from './summarize-region.js';
import { frameSummary } from './summary-message.js';

/**
 * Puts a recorded summary on the surface: one transaction of the framed `user/message` with
 * `surfaceOp: replace` over the region and `sourceEventSeqs` (start, summary, every shadowed
 * event), and `compaction/end` committed. Discarded instead, with `compaction/end` saying why,
 * when the surface changed since the summary was computed or the summary would not make the
 * context smaller.
 */
export async function commitSummary(session: Session, summary: RegionSummary, overheadTokens: number): Promise<CompactionResult> {
  const { compactionId, trigger, covered } = summary;
  const tokensBefore = session.messageTokens() + overheadTokens;
  const discard = async (reason: 'surface-changed' | 'not-smaller'): Promise<CompactionResult> => {
    await session.append({ type: 'compaction/end', payload: { compactionId, outcome: 'discarded', stage: 'summary', reason, tokensBefore } });
    return { outcome: 'discarded', compactionId, trigger, reason, tokensBefore };
  };
  if (session.replaceGeneration !== summary.generation) return discard('surface-changed');
  const content = frameSummary({ compactionId, covered, summary: summary.text });
  const summaryTokens = estimateMessageTokens({ role: 'user', seq: 0, source: 'compaction-summary', content });
  if (summaryTokens >= summary.regionTokens) return discard('not-smaller');
  const tokensAfter = tokensBefore - summary.regionTokens + summaryTokens;
  const [message] = await session.log.appendMany([
    nodeDraft(session, {
      type: 'user/message',
      payload: { content, source: 'compaction-summary', compactionId },
      surfaceOp: { op: 'replace', start: covered.start, end: covered.end },
      sourceEventSeqs: [summary.startSeq, summary.summarySeq, ...summary.regionSeqs],
    }),
    nodeDraft(session, {
      type: 'compaction/end',
      payload: { compactionId, outcome: 'committed', stage: 'summary', tokensBefore, tokensAfter, summaryTokens, regionTokens: summary.regionTokens },
    }),
  ]);
  return {
    outcome: 'committed',
    compactionId,
    trigger,
    tokensBefore,
    tokensAfter,
    covered,
    summarySeq: summary.summarySeq,
    messageSeq: message!.seq,
    attempts: summary.attempts,
    appendedFacts: summary.appendedFacts,
    ...(summary.usage === undefined ? {} : { usage: summary.usage }),
  };
}
