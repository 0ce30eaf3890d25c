import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { budgetOf } from '../run/budget/recorded-budget.js';
import type { RunBudget } from '../run/budget/run-budget.js';
import { executablePlan, type StoredPlan } from '../run/storage/plan-store.js';
import type { RunRecord } from '../run/storage/run-store.js';
import { RUN_MEMORY_EVENT_TYPES, RunMemory } from '../run/views/run-recovery.js';
import { readEvents } from '../session/event-log.js';
import type { SessionEvent } from '../session/event-types.js';

/**
 * The run's memory without the model answers: those only count an open attempt's calls, which
 * the worker asks of the one node it takes over (`WorkerRunFold.modelCallsSince`).
 */
const FOLDED_TYPES = [...RUN_MEMORY_EVENT_TYPES.filter((type) => type !== 'assistant/message'), 'budget/set', 'node/started'] as const;

/**
 * What a worker keeps of one run between the nodes it runs of it: the run's memory (handoffs,
 * boundaries, patches, reuse keys, attempts begun) and its last recorded budget, folded from the
 * log as the log grows. A node's start reads only what was appended since the last read, in one
 * statement; each node used to read again every memory event of the run (every node's model
 * answers among them) and every budget. The log's seqs become visible in order (an append that
 * takes a seq waits for the one before it; see one-statement-append.ts), so nothing is skipped.
 */
export class WorkerRunFold {
  readonly memory = new RunMemory();
  #budget: RunBudget | undefined;
  /** Each node's last started attempt (`node/started`) folded so far. */
  readonly #started = new Map<string, number>();
  #nextSeq = 1;
  #reading: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #plan: { readonly version: number | null; readonly stored: Promise<StoredPlan> } | undefined;
  readonly #db: Kysely<Database>;
  readonly #runId: string;

  constructor(db: Kysely<Database>, runId: string) {
    this.#db = db;
    this.#runId = runId;
  }

  /** The budget the run last recorded (`budget/set`), as of the last refresh. */
  get budget(): RunBudget | undefined {
    return this.#budget;
  }

  /**
   * Folds in everything appended up to now. A read already in flight may have begun before what
   * the caller needs was committed (its dependencies' outcomes): the caller waits for it and then
   * for a read of its own, which the callers that come meanwhile share.
   */
  refresh(): Promise<void> {
    if (this.#reading === undefined) {
      this.#reading = this.#read().finally(() => (this.#reading = undefined));
      return this.#reading;
    }
    this.#queued ??= this.#reading
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.refresh();
      });
    return this.#queued;
  }

  /**
   * The run's approved plan (`executablePlan`, its hash checked), read once per plan version: the
   * caller's run record, read when the node was claimed, names the current version, and a stored
   * version never changes (an amended plan is a new version).
   */
  plan(run: RunRecord): Promise<StoredPlan> {
    if (this.#plan?.version !== run.planVersion) {
      const stored = executablePlan(this.#db, run);
      const kept = { version: run.planVersion, stored };
      this.#plan = kept;
      // A failed read is not kept: the next node reads again.
      stored.catch(() => {
        if (this.#plan === kept) this.#plan = undefined;
      });
    }
    return this.#plan!.stored;
  }

  /**
   * Folds in what was appended up to the start of the node's `attempt`, if no read has yet: a
   * node's start is stored with or after its dependencies' outcomes, so a fold that holds it holds
   * them. A read begun beside the claim (`JobClaimsContext.prefetch`) may have run before the
   * scheduler's write of them landed, while the claim, a moment later, found the attempt started.
   */
  async readStartOf(nodeId: string, attempt: number): Promise<void> {
    if ((this.#started.get(nodeId) ?? 0) < attempt) await this.refresh();
  }

  /** How many model answers the node's attempt that began at `fromSeq` (and never ended) got. */
  async modelCallsSince(nodeId: string, fromSeq: number): Promise<number> {
    return (await readEvents(this.#db, this.#runId, { nodeId, types: ['assistant/message'], fromSeq })).length;
  }

  async #read(): Promise<void> {
    const events = await readEvents(this.#db, this.#runId, { types: FOLDED_TYPES, fromSeq: this.#nextSeq });
    for (const event of events) {
      if (event.type === 'budget/set') this.#budget = budgetOf(event);
      else if (event.type === 'node/started') this.#started.set(event.nodeId!, (event as SessionEvent<'node/started'>).payload.attempt);
      else this.memory.add([event]);
      this.#nextSeq = event.seq + 1;
    }
  }
}
