import type { Session } from '../session/index.js';
import { errorMessage } from '../errors.js';
import { tryLockCompaction, unlockCompaction } from './compaction-lock.js';
import type { CompactionResult, CompactionSkipReason } from './compaction-result.js';
import { resolveCompactionSettings, type CompactionSettings } from './compaction-settings.js';
import { commitSummary } from './commit-summary.js';
import { selectRegion, skipReasonOf } from './select-region.js';
import { summarizeRegion, type RegionSummary } from './summarize-region.js';
import type { SummaryCallGate } from './summarizer.js';
import { promptTokens, viewSurface, type PromptParts } from './surface-view.js';

export type CandidateStatus = 'computing' | 'ready' | 'failed' | 'closed';

/** The candidate lifecycle: computed once, then committed or discarded once. */
const CANDIDATE_TRANSITIONS: Readonly<Record<CandidateStatus, readonly CandidateStatus[]>> = {
  computing: ['ready', 'failed'],
  ready: ['closed'],
  failed: [],
  closed: [],
};

export interface CandidateOptions extends CompactionSettings {
  /** Aborts the candidate's summarizer call when the node stops. */
  readonly signal: AbortSignal;
  readonly prompt?: PromptParts;
  /** The run's budget, asked before each summary call. */
  readonly gate?: SummaryCallGate;
}

export type CandidateStart =
  | { readonly started: true; readonly candidate: CompactionCandidate }
  | { readonly started: false; readonly reason: CompactionSkipReason };

/**
 * A summary computed in the background, at the soft watermark, for the region the surface had
 * then. It holds the surface's compaction lock while the summarizer runs. `commit()` at the
 * threshold puts it on the surface if the surface generation it was computed on is still
 * current; otherwise it is discarded and the caller compacts synchronously.
 */
export class CompactionCandidate {
  readonly session: Session;
  readonly generation: number;
  readonly #controller: AbortController;
  readonly #settled: Promise<void>;
  readonly #overheadTokens: number;
  #status: CandidateStatus = 'computing';
  #summary: RegionSummary | undefined;
  #failure: CompactionResult | undefined;

  /** Use `startBackgroundCandidate`. */
  constructor(
    session: Session,
    generation: number,
    overheadTokens: number,
    compute: (signal: AbortSignal) => ReturnType<typeof summarizeRegion>,
    signal: AbortSignal,
  ) {
    this.session = session;
    this.generation = generation;
    this.#overheadTokens = overheadTokens;
    this.#controller = new AbortController();
    this.#settled = compute(AbortSignal.any([signal, this.#controller.signal]))
      .then(
        (outcome) => {
          if (outcome.ok) this.#summary = outcome.summary;
          else this.#failure = outcome.result;
          this.#moveTo(outcome.ok ? 'ready' : 'failed');
        },
        (error: unknown) => {
          this.#failure = { outcome: 'failed', compactionId: 'unrecorded', trigger: 'background', error: errorMessage(error), tokensBefore: 0, attempts: 0 };
          this.#moveTo('failed');
        },
      )
      .finally(() => unlockCompaction(session));
  }

  get status(): CandidateStatus {
    return this.#status;
  }

  /** The compaction id once the summary is recorded. */
  get compactionId(): string | undefined {
    return this.#summary?.compactionId ?? (this.#failure?.outcome === 'failed' ? this.#failure.compactionId : undefined);
  }

  /** Settles when the summarizer is done, one way or the other; never rejects. */
  settled(): Promise<void> {
    return this.#settled;
  }

  /**
   * Waits for the summary, then commits it if the surface is still the one it was computed on.
   * Returns `committed`, `discarded` (surface changed, or the summary is not smaller), `failed`
   * (the summarizer failed), or `skipped` (aborted while waiting, or another compaction runs).
   */
  async commit(signal: AbortSignal): Promise<CompactionResult> {
    const tokens = (): number => this.session.messageTokens() + this.#overheadTokens;
    if (!(await settledOrAborted(this.#settled, signal))) return { outcome: 'skipped', trigger: 'background', reason: 'aborted', tokens: tokens() };
    if (this.#status === 'failed') return this.#failure!;
    if (this.#status === 'closed' || this.#summary === undefined) return { outcome: 'skipped', trigger: 'background', reason: 'nothing-to-compact', tokens: tokens() };
    if (!tryLockCompaction(this.session)) return { outcome: 'skipped', trigger: 'background', reason: 'in-progress', tokens: tokens() };
    try {
      this.#moveTo('closed');
      return await commitSummary(this.session, this.#summary, this.#overheadTokens);
    } finally {
      unlockCompaction(this.session);
    }
  }

  /**
   * Gives the candidate up: a running summarizer is aborted (its compaction ends failed); a
   * ready summary is recorded as discarded. Safe to call more than once.
   */
  async discard(reason = 'not needed'): Promise<void> {
    if (this.#status === 'computing') {
      this.#controller.abort(new Error(reason));
      await this.#settled;
    }
    if (this.#status !== 'ready' || this.#summary === undefined) return;
    this.#moveTo('closed');
    const { compactionId } = this.#summary;
    await this.session.append({ type: 'compaction/end', payload: { compactionId, outcome: 'discarded', stage: 'summary', reason } });
  }

  #moveTo(status: CandidateStatus): void {
    if (!CANDIDATE_TRANSITIONS[this.#status].includes(status)) throw new Error(`a ${this.#status} compaction candidate cannot become ${status}`);
    this.#status = status;
  }
}

/**
 * Starts computing a candidate summary of the current surface's compactable region without
 * waiting for it. Not started when another compaction runs or there is nothing to compact.
 */
export function startBackgroundCandidate(session: Session, options: CandidateOptions): CandidateStart {
  if (options.signal.aborted) return { started: false, reason: 'aborted' };
  if (!tryLockCompaction(session)) return { started: false, reason: 'in-progress' };
  const settings = resolveCompactionSettings(options);
  const overheadTokens = promptTokens(options.prompt);
  const view = viewSurface(session, overheadTokens);
  const selection = selectRegion(view, settings);
  if (selection.kind === 'none') {
    unlockCompaction(session);
    return { started: false, reason: skipReasonOf(selection) };
  }
  const candidate = new CompactionCandidate(
    session,
    view.generation,
    overheadTokens,
    (signal) =>
      summarizeRegion(session, {
        view,
        range: selection.range,
        trigger: 'background',
        settings,
        signal,
        ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
        ...(options.gate === undefined ? {} : { gate: options.gate }),
      }),
    options.signal,
  );
  return { started: true, candidate };
}

/** True once `promise` settled; false if `signal` aborted first. */
function settledOrAborted(promise: Promise<void>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    });
  });
}
