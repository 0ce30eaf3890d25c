import type { Session } from '../session/index.js';
import type { CompactionResult, CompactionTrigger } from './compaction-result.js';
import { nodeDraft } from './node-draft.js';
import { prunedResultDraft, type PrunePlan } from './prune.js';
import { surfacePosition } from './turns.js';

export interface CommitPruneInput {
  readonly plan: PrunePlan;
  readonly trigger: CompactionTrigger;
  readonly compactionId: string;
  readonly tokensBefore: number;
}

/**
 * Stage 1 committed in one transaction: `compaction/start` (stage prune), one placeholder
 * `tool/result` per pruned output with `surfaceOp: replace [seq, seq]`, `compaction/end`.
 */
export async function commitPrune(session: Session, input: CommitPruneInput): Promise<CompactionResult> {
  const { plan, trigger, compactionId, tokensBefore } = input;
  const prunedSeqs = plan.prunes.map((prune) => prune.event.seq);
  const range = { start: surfacePosition(plan.prunes[0]!.event), end: surfacePosition(plan.prunes.at(-1)!.event) };
  await session.log.appendMany([
    nodeDraft(session, { type: 'compaction/start', payload: { compactionId, trigger, stage: 'prune', range, tokensBefore } }),
    ...plan.prunes.map((prune) => nodeDraft(session, prunedResultDraft(prune))),
    nodeDraft(session, {
      type: 'compaction/end',
      payload: { compactionId, outcome: 'committed', stage: 'prune', tokensBefore, tokensAfter: plan.tokensAfter, prunedSeqs },
    }),
  ]);
  return { outcome: 'pruned', compactionId, trigger, tokensBefore, tokensAfter: plan.tokensAfter, prunedSeqs };
}
