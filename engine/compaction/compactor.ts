import type { Session, SessionEvent } from '../session/index.js';
import { startBackgroundCandidate, type CompactionCandidate } from './background-candidate.js';
import { isCompacting } from './compaction-lock.js';
import { growthMargin, shouldCompact, type CompactionVerdict } from './compaction-policy.js';
import { isCompacted, type CompactionResult, type CompactionTrigger } from './compaction-result.js';
import { resolveCompactionSettings, type CompactionSettings } from './compaction-settings.js';
import { compactSession } from './compact-session.js';
import { extractKeyFacts, type KeyFactSink } from './key-facts.js';
import type { SummaryCallGate } from './summarizer.js';
import { promptTokens, type PromptParts } from './surface-view.js';

/** Called just before a compaction at the threshold or after an overflow runs (the agent's `PreCompact` hooks). */
export type BeforeCompaction = (trigger: 'threshold' | 'overflow') => Promise<void>;

export interface CompactorOptions extends CompactionSettings {
  /** Compute a candidate summary in the background at the soft watermark; true by default. */
  readonly background?: boolean;
  /** Growth needed after a compaction before the next one; 5 % of the threshold (at least 1K) by default. */
  readonly growthMarginTokens?: number;
  /** Receives the key facts of every committed summary (long-term memory); none when absent. */
  readonly keyFacts?: KeyFactSink;
}

/** This step's prompt; a `PromptSnapshot` fits. Its hashes, when present, cache its token count. */
export interface StepPrompt extends PromptParts {
  readonly systemHash?: string;
  readonly toolsHash?: string;
}

export interface CompactionCheck {
  readonly verdict: CompactionVerdict;
  /** Estimated tokens of the next request: messages, system prompt and tools. */
  readonly tokens: number;
  readonly threshold: number;
  readonly softWatermark: number;
}

export interface PreStepResult extends CompactionCheck {
  /** The compaction that ran this step, if one did. */
  readonly result?: CompactionResult;
  /** The background candidate that started this step, if one did. */
  readonly candidate?: CompactionCandidate;
}

/**
 * The agent loop's entry point to compaction; it fits the agent's `AgentCompactor`. Per step,
 * after `SystemPrompt.assemble()` and before the request is built from `deriveMessages()`:
 *
 *     await compactor.preStep(session, snapshot, signal);   // may compact, or start a candidate
 *
 * When the provider throws `ContextOverflowError`:
 *
 *     if (await compactor.onContextOverflow(session, snapshot, signal)) retry the call once;
 *     else end the node with reason `context_overflow`.
 *
 * When the node ends, however it ends: `await compactor.release(session)`, so a pending
 * background candidate is closed in the log.
 */
export interface Compactor {
  readonly threshold: number;
  readonly softWatermark: number;
  /** The verdict for the next request, without acting on it. */
  check(session: Session, prompt: StepPrompt): Promise<CompactionCheck>;
  /** Checks pressure and acts: compacts at the threshold (committing a ready candidate first), starts a candidate at the soft watermark. */
  preStep(session: Session, prompt: StepPrompt, signal: AbortSignal, before?: BeforeCompaction, gate?: SummaryCallGate): Promise<PreStepResult>;
  /** Compacts after the provider refused the request as too long; true when the surface got smaller, so the call may be retried once. */
  onContextOverflow(session: Session, prompt: StepPrompt, signal: AbortSignal, before?: BeforeCompaction, gate?: SummaryCallGate): Promise<boolean>;
  /** Compacts now, whatever the pressure (a ready candidate is committed first), and says how it went. */
  compact(session: Session, prompt: StepPrompt, signal: AbortSignal, trigger?: CompactionTrigger): Promise<CompactionResult>;
  /** Discards a pending candidate and forgets the surface. */
  release(session: Session): Promise<void>;
}

interface SurfaceState {
  /** Request tokens after this surface's last compaction (or attempt): the loop guard's base. */
  lastTokens: number | undefined;
  candidate: CompactionCandidate | undefined;
  /** Tokens when the last background candidate failed: no new candidate until real growth. */
  candidateFailedAt: number | undefined;
}

/** Most prompt sizes remembered, by prompt version. */
const MAX_CACHED_PROMPT_SIZES = 16;

export function createCompactor(options: CompactorOptions): Compactor {
  const settings = resolveCompactionSettings(options);
  const { threshold, softWatermark } = settings;
  const margin = options.growthMarginTokens ?? growthMargin(threshold);
  const background = options.background ?? true;
  const states = new WeakMap<Session, Promise<SurfaceState>>();
  /** Surfaces whose state was loaded once (a released one that comes back reads the log). */
  const loaded = new WeakSet<Session>();
  const overheadOf = promptOverhead();

  const stateOf = (session: Session): Promise<SurfaceState> => {
    let state = states.get(session);
    if (state === undefined) {
      state = loadState(session, !loaded.has(session));
      states.set(session, state);
      loaded.add(session);
    }
    return state;
  };

  const check = async (session: Session, prompt: StepPrompt): Promise<CompactionCheck> => {
    const state = await stateOf(session);
    const tokens = session.messageTokens() + overheadOf(prompt);
    let verdict = shouldCompact({
      tokens,
      threshold,
      ...(background ? { softWatermark } : {}),
      ...(state.lastTokens === undefined ? {} : { lastCompactionTokens: state.lastTokens }),
      growthMarginTokens: margin,
      candidatePending: state.candidate !== undefined,
    });
    if (verdict === 'background' && state.candidateFailedAt !== undefined && tokens < state.candidateFailedAt + margin) verdict = 'none';
    return { verdict, tokens, threshold, softWatermark };
  };

  const compactNow = async (session: Session, prompt: StepPrompt, signal: AbortSignal, trigger: CompactionTrigger, before?: BeforeCompaction, gate?: SummaryCallGate): Promise<CompactionResult> => {
    if (before !== undefined && (trigger === 'threshold' || trigger === 'overflow')) await before(trigger);
    const result = await compactSurface(await stateOf(session), threshold, () => compactSession(session, { ...options, trigger, signal, prompt, ...(gate === undefined ? {} : { gate }) }), signal);
    if (options.keyFacts !== undefined && result.outcome === 'committed') await proposeKeyFacts(session, result, options.keyFacts, signal);
    return result;
  };

  return {
    threshold,
    softWatermark,
    check,
    async preStep(session, prompt, signal, before, gate) {
      const pressure = await check(session, prompt);
      if (pressure.verdict === 'none') return pressure;
      if (pressure.verdict === 'now') return { ...pressure, result: await compactNow(session, prompt, signal, 'threshold', before, gate) };
      const start = startBackgroundCandidate(session, { ...options, signal, prompt, ...(gate === undefined ? {} : { gate }) });
      if (!start.started) return pressure;
      adoptCandidate(await stateOf(session), start.candidate, pressure.tokens);
      return { ...pressure, candidate: start.candidate };
    },
    async onContextOverflow(session, prompt, signal, before, gate) {
      return isCompacted(await compactNow(session, prompt, signal, 'overflow', before, gate));
    },
    compact(session, prompt, signal, trigger = 'manual') {
      return compactNow(session, prompt, signal, trigger);
    },
    async release(session) {
      const state = await states.get(session);
      states.delete(session);
      await state?.candidate?.discard('the node finished');
    },
  };
}

/** The tokens of a prompt's system text and tools, remembered by their hashes (a few versions). */
function promptOverhead(): (prompt: StepPrompt) => number {
  const promptSizes = new Map<string, number>();
  return (prompt) => {
    if (prompt.systemHash === undefined || prompt.toolsHash === undefined) return promptTokens(prompt);
    const key = `${prompt.systemHash}:${prompt.toolsHash}`;
    let size = promptSizes.get(key);
    if (size === undefined) {
      size = promptTokens(prompt);
      if (promptSizes.size >= MAX_CACHED_PROMPT_SIZES) promptSizes.delete(promptSizes.keys().next().value!);
      promptSizes.set(key, size);
    }
    return size;
  };
}

/**
 * Compacts a surface now: a ready background candidate is committed first, and when it brings
 * the context under the threshold that is enough; otherwise `compact` summarizes in the foreground.
 */
async function compactSurface(state: SurfaceState, threshold: number, compact: () => Promise<CompactionResult>, signal: AbortSignal): Promise<CompactionResult> {
  const candidate = state.candidate;
  state.candidate = undefined;
  let fromCandidate: CompactionResult | undefined;
  if (candidate !== undefined) {
    fromCandidate = await candidate.commit(signal);
    if (fromCandidate.outcome === 'skipped' && fromCandidate.reason === 'aborted') {
      state.candidate = candidate;
      return fromCandidate;
    }
    if (isCompacted(fromCandidate)) {
      state.lastTokens = fromCandidate.tokensAfter;
      if (fromCandidate.tokensAfter < threshold) return fromCandidate;
    }
  }
  const result = await compact();
  if (result.outcome === 'skipped') {
    if (fromCandidate !== undefined && isCompacted(fromCandidate)) return fromCandidate;
    if (result.reason !== 'in-progress' && result.reason !== 'aborted') state.lastTokens = result.tokens;
    return result;
  }
  state.lastTokens = isCompacted(result) ? result.tokensAfter : result.tokensBefore;
  return result;
}

/** A background candidate becomes the surface's; if it fails, no new one starts before real growth. */
function adoptCandidate(state: SurfaceState, candidate: CompactionCandidate, tokens: number): void {
  state.candidate = candidate;
  void candidate.settled().then(() => {
    if (candidate.status !== 'failed') return;
    state.candidateFailedAt = tokens;
    if (state.candidate === candidate) state.candidate = undefined;
  });
}

/**
 * A surface's compaction state, recovered from the log: the size after its last compaction, so
 * a restarted node does not compact again right away. A compaction left open by a crash is
 * closed as failed, so every `compaction/start` has its end. At the first look at a node's first
 * surface there is nothing to recover: no compaction of the node came before it.
 */
async function loadState(session: Session, firstLook: boolean): Promise<SurfaceState> {
  if (firstLook && session.firstOfNode) return { lastTokens: undefined, candidate: undefined, candidateFailedAt: undefined };
  const events = await session.log.read({ nodeId: session.nodeId, types: ['compaction/start', 'compaction/end'] });
  const open = new Map<string, SessionEvent<'compaction/start'>>();
  let lastTokens: number | undefined;
  for (const event of events) {
    if (event.type === 'compaction/start') {
      open.set(event.payload.compactionId, event);
    } else if (event.type === 'compaction/end') {
      const start = open.get(event.payload.compactionId);
      open.delete(event.payload.compactionId);
      if (event.payload.outcome === 'committed') lastTokens = event.payload.tokensAfter;
      else if (event.payload.outcome === 'failed') lastTokens = start?.payload.tokensBefore ?? lastTokens;
    }
  }
  if (!isCompacting(session)) {
    for (const start of open.values()) {
      await session.append({
        type: 'compaction/end',
        payload: { compactionId: start.payload.compactionId, outcome: 'failed', error: 'interrupted: the process stopped during this compaction' },
      });
    }
  }
  return { lastTokens, candidate: undefined, candidateFailedAt: undefined };
}

/** Hands the committed summary's key facts to the sink; a failing sink costs the facts, never the compaction. */
async function proposeKeyFacts(session: Session, result: Extract<CompactionResult, { outcome: 'committed' }>, sink: KeyFactSink, signal: AbortSignal): Promise<void> {
  const [summary] = await session.log.read({ fromSeq: result.summarySeq, toSeq: result.summarySeq, types: ['compaction/summary'] });
  if (summary?.type !== 'compaction/summary') return;
  const facts = extractKeyFacts(summary.payload.summary);
  if (facts.length === 0) return;
  try {
    await sink(facts, { session, compactionId: result.compactionId }, signal);
  } catch {
    // The summary is committed; memory is an extra. The facts stay readable in the summary itself.
  }
}
