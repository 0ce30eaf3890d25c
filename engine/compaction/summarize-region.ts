import type { Usage } from '../model/index.js';
import type { Session } from '../session/index.js';
import type { CompactionResult, CompactionTrigger } from './compaction-result.js';
import type { ResolvedCompactionSettings } from './compaction-settings.js';
import { promptOfTime } from './prompt-of-time.js';
import type { SurfaceRange } from './select-range.js';
import { runSummarizer, type SummaryAttempts } from './summarizer.js';
import { buildSummaryRequest, summaryInstruction, type SeqRange } from './summary-prompt.js';
import { extractSurvivalFacts, type SurvivalFact } from './survival-check.js';
import { surfacePosition } from './turns.js';
import type { PromptParts, SurfaceView } from './surface-view.js';

/** A summary written and recorded, not yet on the surface. */
export interface RegionSummary {
  readonly compactionId: string;
  readonly trigger: CompactionTrigger;
  /** The surface generation the summary was computed on; it may only replace that surface. */
  readonly generation: number;
  readonly range: SurfaceRange;
  readonly covered: SeqRange;
  readonly regionSeqs: readonly number[];
  readonly regionTokens: number;
  readonly startSeq: number;
  readonly summarySeq: number;
  /** The accepted summary, with any lost facts appended. */
  readonly text: string;
  readonly attempts: number;
  readonly appendedFacts: readonly SurvivalFact[];
  readonly usage?: Usage;
}

export type RegionSummaryOutcome =
  | { readonly ok: true; readonly summary: RegionSummary }
  | { readonly ok: false; readonly result: Extract<CompactionResult, { outcome: 'failed' }> };

export interface SummarizeRegionInput {
  readonly view: SurfaceView;
  readonly range: SurfaceRange;
  readonly trigger: CompactionTrigger;
  readonly settings: ResolvedCompactionSettings;
  readonly signal: AbortSignal;
  /** The current prompt: stands in when the log holds no request before the region's end. */
  readonly prompt?: PromptParts;
}

/**
 * Stage 2 up to the commit: records `compaction/start` (range, tokens, the exact summarizer
 * input), asks the summarizer (at most `maxAttempts` calls, survival-checked), then records
 * `compaction/summary` — or `compaction/end` with outcome failed, leaving the surface as it was.
 */
export async function summarizeRegion(session: Session, input: SummarizeRegionInput): Promise<RegionSummaryOutcome> {
  const { view, range, settings, signal } = input;
  const region = view.surface.slice(range.first, range.last + 1);
  const covered = { start: surfacePosition(region[0]!), end: surfacePosition(region.at(-1)!) };
  const regionTokens = view.tokensIn(range);
  const facts = extractSurvivalFacts(region);
  const recorded = await promptOfTime(session, covered.end);
  const prompt = recorded ?? input.prompt ?? { system: '', tools: [] };
  const model = settings.model ?? recorded?.model ?? 'default';
  const messages = view.messages.slice(0, range.last + 1);
  const instruction = summaryInstruction({ covered, region });
  const compactionId = settings.createId();
  const start = await session.append({
    type: 'compaction/start',
    payload: {
      compactionId,
      trigger: input.trigger,
      stage: 'summary',
      range: covered,
      tokensBefore: view.tokens,
      regionTokens,
      surfaceGeneration: view.generation,
      summarizer: {
        model,
        ...(recorded === undefined ? {} : { systemHash: recorded.systemHash, toolsHash: recorded.toolsHash }),
        messageSeqs: messages.map((message) => message.seq),
        instruction,
      },
    },
  });
  const attempts = await runSummarizer({
    summarize: settings.summarize,
    signal,
    maxAttempts: settings.maxAttempts,
    facts,
    request: (missing) =>
      buildSummaryRequest({
        model,
        sessionId: session.log.runId,
        system: prompt.system,
        tools: prompt.tools,
        messages,
        instruction: missing.length === 0 ? instruction : summaryInstruction({ covered, region, missing }),
        instructionSeq: start.seq,
        parameters: settings.summaryParameters,
      }),
  });
  if (!attempts.ok) return recordFailure(session, compactionId, input.trigger, view.tokens, attempts);
  const recordedSummary = await recordSummary(session, compactionId, attempts);
  return {
    ok: true,
    summary: {
      compactionId,
      trigger: input.trigger,
      generation: view.generation,
      range,
      covered,
      regionSeqs: region.map((event) => event.seq),
      regionTokens,
      startSeq: start.seq,
      summarySeq: recordedSummary.seq,
      text: attempts.text,
      attempts: attempts.attempts,
      appendedFacts: attempts.appendedFacts,
      ...(attempts.usage === undefined ? {} : { usage: attempts.usage }),
    },
  };
}

/** The summarizer gave up: `compaction/end` records the failure, and the surface stays as it was. */
async function recordFailure(
  session: Session,
  compactionId: string,
  trigger: CompactionTrigger,
  tokensBefore: number,
  attempts: Extract<SummaryAttempts, { ok: false }>,
): Promise<RegionSummaryOutcome> {
  await session.append({
    type: 'compaction/end',
    payload: { compactionId, outcome: 'failed', stage: 'summary', error: attempts.error, attempts: attempts.attempts },
  });
  return {
    ok: false,
    result: { outcome: 'failed', compactionId, trigger, error: attempts.error, tokensBefore, attempts: attempts.attempts },
  };
}

function recordSummary(session: Session, compactionId: string, attempts: Extract<SummaryAttempts, { ok: true }>) {
  return session.append({
    type: 'compaction/summary',
    payload: {
      compactionId,
      summary: attempts.text,
      ...(attempts.usage === undefined ? {} : { usage: attempts.usage }),
      attempts: attempts.attempts,
      missingAfterFirst: [...attempts.missingAfterFirst],
      appendedFacts: [...attempts.appendedFacts],
    },
  });
}
