import { estimateTextTokens, type Usage } from '../model/index.js';
import type { Session } from '../session/index.js';
import type { CompactionResult, CompactionTrigger } from './compaction-result.js';
import type { ResolvedCompactionSettings } from './compaction-settings.js';
import type { ModelRequest } from '../model/index.js';
import { promptOfTime } from './prompt-of-time.js';
import type { SurfaceRange } from './select-range.js';
import { runSummarizer, type SummaryAttempts, type SummaryCallGate } from './summarizer.js';
import { buildSummaryRequest, summaryInstruction, type SeqRange } from './summary-prompt.js';
import { extractSurvivalFacts, type SurvivalFact } from './survival-check.js';
import { surfacePosition } from './turns.js';
import { promptTokens, type PromptParts, type SurfaceView } from './surface-view.js';

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
  /** USD of `usage`, priced with the summarizer's model. */
  readonly costUsd?: number;
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
  /** The run's budget, asked before each summary call; a refused call is not sent and the summary fails. */
  readonly gate?: SummaryCallGate;
}

/**
 * Stage 2 up to the commit: records `compaction/start` (range, tokens, the exact summarizer
 * input), asks the summarizer (at most `maxAttempts` calls, survival-checked), then records
 * `compaction/summary` — or `compaction/end` with outcome failed, leaving the surface as it was.
 */
export async function summarizeRegion(session: Session, input: SummarizeRegionInput): Promise<RegionSummaryOutcome> {
  const { view, range, settings } = input;
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
  const admitted: (() => void)[] = [];
  const admit = input.gate === undefined ? undefined : admitSummaryCall(input.gate, session.nodeId, settings, view.tokensIn({ first: 0, last: range.last }) + promptTokens(prompt), admitted);
  try {
    return await summarizeAdmitted(session, input, { model, prompt, messages, instruction, covered, region, regionTokens, facts, compactionId, startSeq: start.seq, ...(admit === undefined ? {} : { admit }) });
  } finally {
    // The calls' spend is in the log now (the summary), or they failed: the gate stops holding their estimates.
    for (const settle of admitted) settle();
  }
}

interface SummaryCall {
  readonly model: string;
  readonly prompt: PromptParts;
  readonly messages: SurfaceView['messages'];
  readonly instruction: string;
  readonly covered: SeqRange;
  readonly region: SurfaceView['surface'];
  readonly regionTokens: number;
  readonly facts: readonly SurvivalFact[];
  readonly compactionId: string;
  readonly startSeq: number;
  readonly admit?: (request: ModelRequest) => Promise<string | undefined>;
}

/** Asks the summarizer (each call admitted first, when a budget asks) and records the summary or the failure. */
async function summarizeAdmitted(session: Session, input: SummarizeRegionInput, call: SummaryCall): Promise<RegionSummaryOutcome> {
  const { view, range, settings, signal } = input;
  const { model, prompt, messages, instruction, covered, region, regionTokens, facts, compactionId } = call;
  const attempts = await runSummarizer({
    summarize: settings.summarize,
    signal,
    maxAttempts: settings.maxAttempts,
    facts,
    ...(call.admit === undefined ? {} : { admit: call.admit }),
    request: (missing) =>
      buildSummaryRequest({
        model,
        sessionId: session.log.runId,
        system: prompt.system,
        tools: prompt.tools,
        messages,
        instruction: missing.length === 0 ? instruction : summaryInstruction({ covered, region, missing }),
        instructionSeq: call.startSeq,
        parameters: settings.summaryParameters,
      }),
  });
  if (!attempts.ok) return recordFailure(session, compactionId, input.trigger, view.tokens, attempts);
  const costUsd = attempts.usage === undefined ? undefined : settings.price?.(attempts.usage);
  const recordedSummary = await recordSummary(session, compactionId, attempts, { model, ...(costUsd === undefined ? {} : { costUsd }) });
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
      startSeq: call.startSeq,
      summarySeq: recordedSummary.seq,
      text: attempts.text,
      attempts: attempts.attempts,
      appendedFacts: attempts.appendedFacts,
      ...(attempts.usage === undefined ? {} : { usage: attempts.usage }),
      ...(costUsd === undefined ? {} : { costUsd }),
    },
  };
}

/**
 * The budget's say on one summary call, weighed as a node's call is: the request's input tokens
 * (the messages up to the region's end, the prompt, the instruction) at the summarizer model's
 * cache-miss price, plus its maximum output. Admitted calls are settled once the summary is recorded.
 */
function admitSummaryCall(gate: SummaryCallGate, nodeId: string | null, settings: ResolvedCompactionSettings, baseTokens: number, admitted: (() => void)[]) {
  return async (request: ModelRequest): Promise<string | undefined> => {
    const instruction = request.messages.at(-1);
    const inputTokens = baseTokens + (instruction === undefined ? 0 : estimateTextTokens(instruction.content));
    const outputTokens = request.parameters?.maxOutputTokens ?? EXPECTED_SUMMARY_OUTPUT_TOKENS;
    const costUsd = settings.price?.({ input: inputTokens, output: outputTokens, cacheHit: 0, reasoning: 0 }) ?? 0;
    const verdict = await gate.admit({ nodeId, inputTokens, outputTokens, costUsd, call: 'summary' });
    if (!verdict.admitted) return verdict.reason;
    admitted.push(() => verdict.settle());
    return undefined;
  };
}

/** Output a summary call is expected to write when its request sets no maximum. */
const EXPECTED_SUMMARY_OUTPUT_TOKENS = 1_000;

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

function recordSummary(session: Session, compactionId: string, attempts: Extract<SummaryAttempts, { ok: true }>, cost: { readonly model: string; readonly costUsd?: number }) {
  return session.append({
    type: 'compaction/summary',
    payload: {
      compactionId,
      summary: attempts.text,
      ...(attempts.usage === undefined ? {} : { usage: attempts.usage }),
      model: cost.model,
      ...(cost.costUsd === undefined ? {} : { costUsd: cost.costUsd }),
      attempts: attempts.attempts,
      missingAfterFirst: [...attempts.missingAfterFirst],
      appendedFacts: [...attempts.appendedFacts],
    },
  });
}
