import type { ModelRequest, Usage } from '../model/index.js';
import { errorMessage } from '../errors.js';
import { formatFact } from './summary-prompt.js';
import { missingFacts, type SurvivalFact } from './survival-check.js';

export interface SummarizerReply {
  readonly text: string;
  readonly usage?: Usage;
}

/** A summary call about to be sent, as a run's budget weighs it (the agent's `ModelCallEstimate`). */
export interface SummaryCallEstimate {
  readonly nodeId: string | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly call?: 'summary';
}

/**
 * A run's budget as compaction asks it before each summary call: engine/agent's `ModelCallGate`,
 * spelled out here so compaction does not depend on the agent folder (the two are the same shape).
 */
export interface SummaryCallGate {
  admit(call: SummaryCallEstimate): Promise<{ readonly admitted: true; settle(): void } | { readonly admitted: false; readonly reason: string }>;
}

/**
 * The model call that writes a summary, injected so the agent can plug in its own model call
 * (`callModel(provider, request, { signal })` → `{ text: content, usage }`). It may throw; the
 * compaction records the failure and leaves the surface alone.
 */
export type Summarizer = (request: ModelRequest, signal: AbortSignal) => Promise<SummarizerReply>;

/** Summarizer calls per trigger, the first included. */
export const DEFAULT_MAX_SUMMARY_ATTEMPTS = 2;

export type SummaryAttempts =
  | {
      readonly ok: true;
      readonly text: string;
      readonly attempts: number;
      readonly usage?: Usage;
      /** What the first attempt lost (the retry named these). */
      readonly missingAfterFirst: readonly SurvivalFact[];
      /** What the last attempt still lost: appended to `text` as a list. */
      readonly appendedFacts: readonly SurvivalFact[];
    }
  | { readonly ok: false; readonly error: string; readonly attempts: number; readonly usage?: Usage; readonly refused?: true };

export interface RunSummarizerInput {
  readonly summarize: Summarizer;
  readonly signal: AbortSignal;
  readonly maxAttempts?: number;
  /** The facts the summary must keep. */
  readonly facts: readonly SurvivalFact[];
  /** The request of an attempt; `missing` is non-empty on a retry after a lossy summary. */
  readonly request: (missing: readonly SurvivalFact[]) => ModelRequest;
  /** Asked before each call (a run's budget): a reason when the call may not be sent, and no call is. */
  readonly admit?: (request: ModelRequest) => Promise<string | undefined>;
}

/**
 * Asks for a summary at most `maxAttempts` times. A failed call is retried as is; a summary that
 * loses facts is retried once with the lost facts named; if the last summary still loses some,
 * they are appended to it as a list. A call `admit` refuses is not sent: the best summary so far
 * stands, or the summary fails as refused. Returns the accepted text or the last error.
 */
export async function runSummarizer(input: RunSummarizerInput): Promise<SummaryAttempts> {
  const maxAttempts = Math.max(1, input.maxAttempts ?? DEFAULT_MAX_SUMMARY_ATTEMPTS);
  let usage: Usage | undefined;
  let lastError = 'the summarizer was not called';
  let best: { text: string; lost: readonly SurvivalFact[] } | undefined;
  let missingAfterFirst: readonly SurvivalFact[] = [];
  let attempts = 0;
  while (attempts < maxAttempts) {
    if (input.signal.aborted) return { ok: false, error: abortMessage(input.signal), attempts, ...(usage === undefined ? {} : { usage }) };
    const request = input.request(best?.lost ?? []);
    const refusal = await input.admit?.(request);
    if (refusal !== undefined) {
      if (best !== undefined) break;
      return { ok: false, error: refusal, attempts, refused: true, ...(usage === undefined ? {} : { usage }) };
    }
    attempts += 1;
    let text: string;
    try {
      const reply = await input.summarize(request, input.signal);
      usage = addUsage(usage, reply.usage);
      text = reply.text.trim();
    } catch (error) {
      lastError = input.signal.aborted ? abortMessage(input.signal) : errorMessage(error);
      if (input.signal.aborted) break;
      continue;
    }
    if (text === '') {
      lastError = 'the summarizer returned no text';
      continue;
    }
    const lost = missingFacts(input.facts, text);
    if (best === undefined) missingAfterFirst = lost;
    if (lost.length === 0) return { ok: true, text, attempts, missingAfterFirst, appendedFacts: [], ...(usage === undefined ? {} : { usage }) };
    if (best === undefined || lost.length <= best.lost.length) best = { text, lost };
  }
  if (best === undefined) return { ok: false, error: lastError, attempts, ...(usage === undefined ? {} : { usage }) };
  return { ok: true, text: appendFacts(best.text, best.lost), attempts, missingAfterFirst, appendedFacts: best.lost, ...(usage === undefined ? {} : { usage }) };
}

/** The summary with the facts it lost appended as a list. */
export function appendFacts(summary: string, facts: readonly SurvivalFact[]): string {
  if (facts.length === 0) return summary;
  return `${summary}\n\n## Facts to keep\nThe compacted conversation also named these:\n${facts.map(formatFact).join('\n')}`;
}

function addUsage(total: Usage | undefined, usage: Usage | undefined): Usage | undefined {
  if (usage === undefined) return total;
  if (total === undefined) return usage;
  return {
    input: total.input + usage.input,
    output: total.output + usage.output,
    cacheHit: total.cacheHit + usage.cacheHit,
    reasoning: total.reasoning + usage.reasoning,
    ...(total.cacheWrite === undefined && usage.cacheWrite === undefined ? {} : { cacheWrite: (total.cacheWrite ?? 0) + (usage.cacheWrite ?? 0) }),
  };
}

function abortMessage(signal: AbortSignal): string {
  return `aborted${signal.reason === undefined ? '' : `: ${errorMessage(signal.reason)}`}`;
}
