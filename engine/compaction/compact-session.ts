import type { Session } from '../session/index.js';
import { tryLockCompaction, unlockCompaction } from './compaction-lock.js';
import type { CompactionResult, CompactionSkipReason, CompactionTrigger } from './compaction-result.js';
import { resolveCompactionSettings, type CompactionSettings, type ResolvedCompactionSettings } from './compaction-settings.js';
import { commitPrune } from './commit-prune.js';
import { commitSummary } from './commit-summary.js';
import { planPrune, type PrunePlan } from './prune.js';
import { compactableSpan } from './select-range.js';
import { selectRegion, skipReasonOf } from './select-region.js';
import { summarizeRegion } from './summarize-region.js';
import type { SummaryCallGate } from './summarizer.js';
import { promptTokens, viewSurface, type PromptParts } from './surface-view.js';

export interface CompactSessionOptions extends CompactionSettings {
  readonly trigger: CompactionTrigger;
  readonly signal: AbortSignal;
  /**
   * This step's system prompt and tools: their size counts towards the request, and they stand
   * in for the prompt of the region's time when the log has no earlier request.
   */
  readonly prompt?: PromptParts;
  /** The run's budget, asked before each summary call. */
  readonly gate?: SummaryCallGate;
}

/**
 * Compacts one node's surface, never editing the log, only appending to it:
 * 1. prune old tool outputs to placeholders, and stop there if that brings the request under
 *    the target;
 * 2. otherwise summarize the oldest turns (all but the last `keepTurns`, as many as the
 *    summarizer can read) and replace them by the framed summary;
 * a summary that would not make the context smaller is discarded and pruning goes as far as it
 * can instead. A failure leaves the surface as it was. One compaction per surface at a time: a
 * call during another returns `skipped: in-progress`.
 */
export async function compactSession(session: Session, options: CompactSessionOptions): Promise<CompactionResult> {
  const overheadTokens = promptTokens(options.prompt);
  if (!tryLockCompaction(session)) return skipped(options.trigger, 'in-progress', session.messageTokens() + overheadTokens);
  try {
    return await compactLocked(session, options, resolveCompactionSettings(options), overheadTokens);
  } finally {
    unlockCompaction(session);
  }
}

async function compactLocked(
  session: Session,
  options: CompactSessionOptions,
  settings: ResolvedCompactionSettings,
  overheadTokens: number,
): Promise<CompactionResult> {
  const { trigger, signal } = options;
  const view = viewSurface(session, overheadTokens);
  if (signal.aborted) return skipped(trigger, 'aborted', view.tokens);
  const span = compactableSpan(view.layout, settings.keepTurns);
  const planFor = (targetTokens: number, tokensOf = view.tokensOf): PrunePlan =>
    planPrune({
      surface: view.surface,
      span,
      tokensOf,
      sizeOf: (index) => view.messages[index]!.content.length,
      tokens: view.tokens,
      targetTokens,
      minTokens: settings.pruneMinTokens,
    });
  const pruneNow = (plan: PrunePlan): Promise<CompactionResult> =>
    commitPrune(session, { plan, trigger, compactionId: settings.createId(), tokensBefore: view.tokens });
  // Stage 1 alone when it can be enough. Estimated sizes decide that cheaply; only a feasible plan
  // is made again on exact token counts (estimating every old output costs a full derivation).
  if (planFor(settings.targetTokens, view.estimateOf).reachesTarget) {
    const prune = planFor(settings.targetTokens);
    if (prune.prunes.length > 0 && prune.reachesTarget) return pruneNow(prune);
  }

  const selection = selectRegion(view, settings);
  if (selection.kind === 'none') {
    const partial = planFor(settings.targetTokens);
    if (partial.prunes.length > 0) return pruneNow(partial);
    return skipped(trigger, skipReasonOf(selection), view.tokens);
  }
  const summarized = await summarizeRegion(session, {
    view,
    range: selection.range,
    trigger,
    settings,
    signal,
    ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
    ...(options.gate === undefined ? {} : { gate: options.gate }),
  });
  if (!summarized.ok) return summarized.result;
  const committed = await commitSummary(session, summarized.summary, overheadTokens);
  if (committed.outcome !== 'discarded') return committed;
  // The summary was no smaller than what it summarized: prune as far as possible instead.
  const further = planFor(0);
  return further.prunes.length > 0 ? pruneNow(further) : committed;
}

function skipped(trigger: CompactionTrigger, reason: CompactionSkipReason, tokens: number): CompactionResult {
  return { outcome: 'skipped', trigger, reason, tokens };
}
