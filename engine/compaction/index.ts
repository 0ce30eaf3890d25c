/**
 * Compaction (SPEC §5.1): when a node's history outgrows its context window, old tool outputs
 * are pruned to placeholders and old turns are folded into a structured summary — always by
 * appending to the log, never by editing it. The agent loop uses `createCompactor`.
 */
export { createCompactor, type CompactionCheck, type Compactor, type CompactorOptions, type PreStepResult, type StepPrompt } from './compactor.js';
export { compactSession, type CompactSessionOptions } from './compact-session.js';
export { CompactionCandidate, startBackgroundCandidate, type CandidateOptions, type CandidateStart, type CandidateStatus } from './background-candidate.js';
export { isCompacted, type CompactionResult, type CompactionSkipReason, type CompactionTrigger } from './compaction-result.js';
export { DEFAULT_PRUNE_TARGET_RATIO, resolveCompactionSettings, type CompactionSettings, type ResolvedCompactionSettings } from './compaction-settings.js';
export {
  COMPACTION_FOLLOW_UP_RESERVE_TOKENS,
  COMPACTION_SUMMARY_RESERVE_TOKENS,
  DEFAULT_SOFT_WATERMARK_RATIO,
  compactionThreshold,
  compactionThresholds,
  type CompactionThresholds,
  type ThresholdOverrides,
} from './compaction-threshold.js';
export { COMPACTION_GROWTH_RATIO, MIN_COMPACTION_GROWTH_TOKENS, growthMargin, shouldCompact, type CompactionPressure, type CompactionVerdict } from './compaction-policy.js';
export { groupTurns, surfacePosition, type SurfaceLayout, type Turn } from './turns.js';
export {
  DEFAULT_KEEP_TURNS,
  compactableSpan,
  compactableTurns,
  selectRange,
  validateRange,
  type RangeProblem,
  type RangeSelection,
  type RangeValidation,
  type SelectRangeOptions,
  type SurfaceRange,
} from './select-range.js';
export { PRUNE_MIN_TOKENS, isPrunedResult, planPrune, prunePlaceholder, prunedResultDraft, type PlannedPrune, type PruneInput, type PrunePlan } from './prune.js';
export { KEY_FACTS_SECTION, KEY_FACT_KINDS, extractKeyFacts, type KeyFact, type KeyFactOrigin, type KeyFactSink } from './key-facts.js';
export { SUMMARY_SECTIONS, buildSummaryRequest, formatFact, summaryInstruction, type SeqRange, type SummaryInstructionInput, type SummaryRequestInput } from './summary-prompt.js';
export { frameSummary, type FrameSummaryInput } from './summary-message.js';
export { MAX_SURVIVAL_FACTS, extractSurvivalFacts, failingTestNames, missingFacts, survivalCheck, type SurvivalFact } from './survival-check.js';
export { DEFAULT_MAX_SUMMARY_ATTEMPTS, appendFacts, runSummarizer, type RunSummarizerInput, type Summarizer, type SummarizerReply, type SummaryAttempts } from './summarizer.js';
export { isCompacting } from './compaction-lock.js';
export { promptOfTime, type PromptOfTime } from './prompt-of-time.js';
export type { PromptParts } from './surface-view.js';
