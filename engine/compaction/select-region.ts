import type { CompactionSkipReason } from './compaction-result.js';
import { summarizerBudget, type ResolvedCompactionSettings } from './compaction-settings.js';
import { compactableSpan, selectRange, type RangeSelection } from './select-range.js';
import type { SurfaceView } from './surface-view.js';

/** The range to summarize on a view: `selectRange` bounded by what the summarizer can read. */
export function selectRegion(view: SurfaceView, settings: ResolvedCompactionSettings): RangeSelection {
  const pinnedTokens = view.layout.pinned === 0 ? 0 : view.tokensIn({ first: 0, last: view.layout.pinned - 1 });
  const budget = summarizerBudget(settings, view.overheadTokens, pinnedTokens);
  const span = compactableSpan(view.layout, settings.keepTurns);
  // When everything before the kept turns fits, no turn needs counting.
  if (span !== undefined && view.tokensIn(span) <= budget) return selectRange(view.surface, { keepTurns: settings.keepTurns });
  return selectRange(view.surface, { keepTurns: settings.keepTurns, maxTokens: budget, tokensOf: view.tokensOf });
}

/** Why no range could be selected, as a compaction's skip reason. */
export function skipReasonOf(selection: Extract<RangeSelection, { kind: 'none' }>): CompactionSkipReason {
  switch (selection.reason) {
    case 'too-few-turns':
      return 'nothing-to-compact';
    case 'too-large':
      return 'region-too-large';
    case 'unsplittable':
      return 'unsplittable';
  }
}
