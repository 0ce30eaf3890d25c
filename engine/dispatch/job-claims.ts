import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { dialectOf } from '../../migrations/index.js';
import type { Database } from '../db/database.js';
import { errorMessage } from '../errors.js';
import { getRun, type RunRecord } from '../run/storage/run-store.js';
import { NODE_TRANSITION_EVENT_TYPES } from '../run/storage/node-event.js';
import { nodeStatesFromEvents } from '../run/views/node-states.js';
import { readEvents } from '../session/event-log.js';
import type { EventDraft } from '../session/event-types.js';
import { runLog } from '../session/run-log.js';
import type { JobQueue, NodeJob } from './job-queue.js';
import { DEFAULT_NODE_CLAIM_TTL_MS, NodeClaim, allClaimsFence, claimNode, claimNodes, claimantOf } from './node-claim.js';
import { claimAndRecord, type RecordedRound } from './claim-and-record.js';
import { PendingResults } from './pending-results.js';

/** What a job's claim came to: its node is this worker's, the run running and the attempt current, `attempt/claimed` stored. */
export interface ClaimedJob {
  readonly claim: NodeClaim;
  readonly run: RunRecord;
  /** Settles once the jobs of the node left locked by a dead process are dropped (never rejects). */
  readonly leftoversDropped: Promise<void>;
  /** The read `JobClaimsContext.prefetch` began for the node's round once its checks passed, if any. */
  readonly prefetched?: Promise<void>;
}

export interface JobClaimsContext {
  readonly db: Kysely<Database>;
  readonly queue: JobQueue;
  readonly worker: string;
  readonly claimTtlMs?: number;
  readonly report?: (line: string) => void;
  /**
   * Begins the read its nodes begin with (the worker's fold of the run: their dependencies'
   * outcomes): beside the round's `attempt/claimed`, not after it, one round trip fewer before a
   * node's request; on PostgreSQL, for a run the worker has seen, beside the claim statement
   * itself, so it may have run before the nodes' start was stored: each node reads again when its
   * fold lacks its start (`WorkerRunFold.readStartOf`).
   */
  readonly prefetch?: (run: RunRecord) => Promise<void>;
}

interface Taking {
  readonly job: NodeJob;
  readonly queuedId: string | undefined;
  resolve(claimed: ClaimedJob | undefined): void;
  reject(error: unknown): void;
}

interface Claimed {
  readonly taking: Taking;
  readonly claim: NodeClaim;
}

interface CheckedRound {
  readonly run: RunRecord;
  readonly going: readonly Claimed[];
  readonly prefetched: Promise<void> | undefined;
}

/** A claim not handed to its job: released (its renewals stop), then the job hears it was skipped (`undefined`) or why it failed. */
function letGo({ taking, claim }: Claimed, error: unknown): void {
  void claim
    .release()
    .catch(() => undefined)
    .then(() => (error === undefined ? taking.resolve(undefined) : taking.reject(error)));
}

/**
 * A worker's claims of the jobs it takes, in rounds. A wide stage reaches a worker as many jobs
 * within a few milliseconds; one by one, each took a claim statement, two reads, a look-up of
 * leftover jobs and a fenced append, some 150 statements for 30 nodes on the store's pool, the
 * appends racing for the run's next seq. A job taken while no round is in flight starts one once
 * the queue has handed over the rest of its fetch (the next turn of the event loop); the jobs
 * taken while a round is in flight go together in the next. On PostgreSQL, per run, one statement
 * claims the nodes, checks them and stores the `attempt/claimed` of those claimed for the first
 * time and current (`claimAndRecord`), beside one look-up of leftover jobs; a node it leaves
 * (claimed before, not started yet) is checked after its claim and recorded by a fenced append.
 * On SQLite, one claim statement with the reads of the run and the nodes' transitions beside it
 * (they stand when every claim of the round is its node's first, and are made again once the
 * claims are held otherwise), then one append of the `attempt/claimed` fenced by all the claims
 * (one by one, each with its own fence, only if that one is refused). Every guarantee of a single
 * claim holds per node: a node runs only while its attempt is current with the claim held; a
 * stale claim stores nothing.
 */
export class JobClaims {
  readonly #context: JobClaimsContext;
  #waiting: Taking[] = [];
  #claiming = false;
  /** The last round's append: the next one goes after it. */
  #appending: Promise<void> = Promise.resolve();
  /** The runs this worker claimed nodes of lately, as last read: a round of one begins its nodes' first read beside its claims. */
  readonly #runs = new Map<string, RunRecord>();

  constructor(context: JobClaimsContext) {
    this.#context = context;
  }

  /**
   * Claims the job's node and records `attempt/claimed`; undefined when the job is not to run (its
   * node is another live worker's, the run is not running, the attempt is not current). Throws
   * the fence's error when the claim was lost before its event was stored.
   */
  take(job: NodeJob, queuedId?: string): Promise<ClaimedJob | undefined> {
    const claimed = new Promise<ClaimedJob | undefined>((resolve, reject) => this.#waiting.push({ job, queuedId, resolve, reject }));
    if (!this.#claiming) {
      this.#claiming = true;
      // The queue hands a worker the jobs of one fetch one after the other: the first round starts
      // once they all are here, not with the first alone (the rest then waited for its checks).
      setImmediate(() => void this.#claimWaiting());
    }
    return claimed;
  }

  async #claimWaiting(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const round = takeRound(this.#waiting);
        const runIds = [...new Set(round.map((taking) => taking.job.runId))];
        await Promise.all(
          runIds.map(async (runId) => {
            const checked = await this.#claimAndCheck(runId, round.filter((taking) => taking.job.runId === runId));
            // The round's append goes after the previous round's (not racing it for the run's next seq); the next round claims meanwhile.
            if (checked !== undefined) this.#appending = this.#appending.then(() => this.#appendRound(runId, checked));
          }),
        );
      }
    } finally {
      this.#claiming = false;
    }
  }

  /**
   * The round's claims and their checks: the nodes that go on to their `attempt/claimed` (on
   * PostgreSQL, those the claim statement could not record); every other job is settled here.
   */
  async #claimAndCheck(runId: string, takings: readonly Taking[]): Promise<CheckedRound | undefined> {
    const claimed: Claimed[] = [];
    try {
      const postgres = dialectOf(this.#context.db as Kysely<unknown>) === 'postgres';
      const checks = postgres ? await this.#claimRecording(runId, takings, claimed) : await this.#claimBeside(runId, takings, claimed);
      if (checks === undefined) return undefined;
      const [run, current] = await checks;
      const going = claimed.filter((entry) => run.status === 'running' && current.has(entry.taking.job.nodeId));
      for (const entry of claimed) if (!going.includes(entry)) letGo(entry, undefined);
      if (going.length === 0) return undefined;
      return { run, going, prefetched: this.#prefetch(run) };
    } catch (error) {
      const held = new Set(claimed.map((entry) => entry.taking));
      for (const taking of takings) if (!held.has(taking)) taking.reject(error);
      for (const entry of claimed) letGo(entry, error);
      return undefined;
    }
  }

  /**
   * SQLite: the claims in one statement, the checks beside it; the claimed nodes go into `claimed`.
   * Returns the checks that hold for them, or undefined when none was claimed.
   */
  async #claimBeside(runId: string, takings: readonly Taking[], claimed: Claimed[]): Promise<Promise<[RunRecord, Set<string>]> | undefined> {
    const { db, worker, claimTtlMs } = this.#context;
    const checking = checksOf(db, runId, takings.map((taking) => taking.job));
    checking.catch(() => undefined);
    const claims = await claimNodes(db, runId, takings.map((taking) => taking.job.nodeId), { worker, ...(claimTtlMs === undefined ? {} : { ttlMs: claimTtlMs }) });
    for (const taking of takings) {
      const claim = claims.get(taking.job.nodeId);
      if (claim instanceof NodeClaim) claimed.push({ taking, claim: claim.keepAlive() });
      else taking.resolve(undefined);
    }
    if (claimed.length === 0) return undefined;
    // Once the node is ours, an attempt found current (started, no outcome committed) stays current
    // until this worker commits one. Checked beside the claim, that holds when the claim is the
    // node's first (token 1: no claim row existed, and rows are never removed): no process ever
    // held the node, so none could have committed an outcome before the claim. Any other claim is
    // checked again, after it.
    const first = claimed.every((entry) => entry.claim.token === 1);
    return first ? checking : checksOf(db, runId, claimed.map((entry) => entry.taking.job));
  }

  /**
   * PostgreSQL: the claims, the checks and the `attempt/claimed` of every node claimed for the
   * first time whose attempt is current, in one statement (`claimAndRecord`): those nodes' jobs
   * are handed their claims here, one round trip after the queue handed them over. Beside that
   * statement go the look-up of the nodes' leftover jobs and, for a run this worker has seen, the
   * read its nodes begin with. A node claimed but not recorded (claimed before, not started yet,
   * not current) goes into `claimed`, and so does a node found held that `claimNode` takes; the
   * checks returned for them are made after their claims.
   */
  async #claimRecording(runId: string, takings: readonly Taking[], claimed: Claimed[]): Promise<Promise<[RunRecord, Set<string>]> | undefined> {
    const { db, worker } = this.#context;
    const ttlMs = this.#context.claimTtlMs ?? DEFAULT_NODE_CLAIM_TTL_MS;
    const seen = this.#runs.get(runId);
    const prefetchedBeside = seen === undefined ? undefined : this.#prefetch(seen);
    let settleRecorded!: (nodes: ReadonlySet<string>) => void;
    const recordedNodes = new Promise<ReadonlySet<string>>((resolve) => (settleRecorded = resolve));
    const leftoversDropped = this.#dropLeftoverJobs(runId, takings, recordedNodes);
    let round: RecordedRound | undefined;
    try {
      round = await claimAndRecord(runLog(db, runId), takings.map((taking) => taking.job), claimantOf({ worker }), ttlMs, (job) => claimedDraft(job, 1, worker));
    } finally {
      settleRecorded(round?.recorded ?? new Set());
    }
    if (round.run !== undefined) this.seeRun(round.run);
    const prefetched = prefetchedBeside ?? (round.recorded.size > 0 ? this.#prefetch(round.run!) : undefined);
    const held: Taking[] = [];
    for (const taking of takings) {
      const token = round.tokens.get(taking.job.nodeId);
      if (token === undefined) {
        held.push(taking);
        continue;
      }
      const claim = new NodeClaim(db, runId, taking.job.nodeId, token, ttlMs, round.claimedAt).keepAlive();
      if (round.recorded.has(taking.job.nodeId)) taking.resolve({ claim, run: round.run!, leftoversDropped, ...(prefetched === undefined ? {} : { prefetched }) });
      else claimed.push({ taking, claim });
    }
    for (const taking of held) {
      const claim = await claimNode(db, runId, taking.job.nodeId, { worker, ttlMs });
      if (claim instanceof NodeClaim) claimed.push({ taking, claim: claim.keepAlive() });
      else taking.resolve(undefined);
    }
    if (claimed.length === 0) return undefined;
    return checksOf(db, runId, claimed.map((entry) => entry.taking.job));
  }

  /** Begins the read the nodes of `run` begin with (`JobClaimsContext.prefetch`), if there is one. */
  #prefetch(run: RunRecord): Promise<void> | undefined {
    const prefetched = this.#context.prefetch?.(run);
    prefetched?.catch(() => undefined);
    return prefetched;
  }

  /** Keeps the run's record for its next rounds (the last few runs): a round of it begins its nodes' first read beside its claims. */
  seeRun(run: RunRecord): void {
    this.#runs.delete(run.id);
    this.#runs.set(run.id, run);
    if (this.#runs.size > KEPT_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
  }

  /** Drops the nodes' leftover jobs and appends their `attempt/claimed`; hands each stored one its claim. Never rejects. */
  async #appendRound(runId: string, { run, going, prefetched }: CheckedRound): Promise<void> {
    // Jobs of these nodes that a dead process still holds locked (it lost the node, or never
    // claimed it) are dropped, not left behind: beside the append, not holding up the next round;
    // each job waits for it before its work.
    const leftoversDropped = this.#dropLeftoverJobs(runId, going.map((entry) => entry.taking));
    const { stored, refused } = await this.#appendClaimed(runId, going);
    for (const { taking, claim } of stored) taking.resolve({ claim, run, leftoversDropped, ...(prefetched === undefined ? {} : { prefetched }) });
    for (const [entry, error] of refused) letGo(entry, error);
  }

  /**
   * The `attempt/claimed` of every node in one append fenced by all their claims; when it is
   * refused, one by one, each with its own fence: a node whose claim was lost fails alone.
   */
  async #appendClaimed(runId: string, going: readonly Claimed[]): Promise<{ stored: Claimed[]; refused: Map<Claimed, unknown> }> {
    const log = runLog(this.#context.db, runId);
    const draft = ({ taking, claim }: Claimed): EventDraft<'attempt/claimed'> => claimedDraft(taking.job, claim.token, this.#context.worker);
    const refused = new Map<Claimed, unknown>();
    if (going.length > 1) {
      const together = await log.appendMany(going.map(draft), { fence: allClaimsFence(going.map((entry) => entry.claim)) }).then(
        () => true,
        () => false,
      );
      if (together) return { stored: [...going], refused };
    }
    const stored: Claimed[] = [];
    await Promise.all(
      going.map(async (entry) => {
        try {
          await log.append(draft(entry), { fence: entry.claim.appendFence() });
          stored.push(entry);
        } catch (error) {
          refused.set(entry, error);
        }
      }),
    );
    return { stored, refused };
  }

  /** Drops the nodes' leftover jobs (with `held`: looked up now, dropped once it says which nodes are held). Never rejects. */
  async #dropLeftoverJobs(runId: string, takings: readonly Taking[], held?: Promise<ReadonlySet<string>>): Promise<void> {
    const kept = takings.flatMap((taking) => (taking.queuedId === undefined ? [] : [{ nodeId: taking.job.nodeId, jobId: taking.queuedId }]));
    if (kept.length === 0) return;
    try {
      const dropped = await this.#context.queue.dropLeftoverNodeJobs(runId, kept, held);
      for (const [nodeId, count] of dropped) this.#context.report?.(`${nodeId} (run ${runId}): dropped ${count} job(s) of it left locked by a worker that lost the node`);
    } catch (error) {
      this.#context.report?.(`run ${runId}: leftover jobs not dropped: ${errorMessage(error)}`);
    }
  }
}

/** The `attempt/claimed` of a job's node under the claim with `token`. */
function claimedDraft(job: NodeJob, token: number, worker: string): EventDraft<'attempt/claimed'> {
  return { type: 'attempt/claimed', nodeId: job.nodeId, payload: { attempt: job.attempt, token, worker, pid: process.pid, host: worker.split('/')[0] ?? worker } };
}

/** How many runs' records a worker keeps for its next rounds (`JobClaims.#seeRun`). */
const KEPT_RUNS = 16;

/** The waiting jobs the next round takes, oldest first: each node once (a second job of a node waits for the next round). */
function takeRound(waiting: Taking[]): Taking[] {
  const seen = new Set<string>();
  const round: Taking[] = [];
  const later: Taking[] = [];
  for (const taking of waiting.splice(0)) {
    const key = `${taking.job.runId}\u0000${taking.job.nodeId}`;
    (seen.has(key) ? later : round).push(taking);
    seen.add(key);
  }
  waiting.push(...later);
  return round;
}

/** The run and, of `jobs`, the nodes whose job's attempt is current (`currentAttempts`). */
function checksOf(db: Kysely<Database>, runId: string, jobs: readonly NodeJob[]): Promise<[RunRecord, Set<string>]> {
  return Promise.all([getRun(db, runId), currentAttempts(db, runId, jobs)]);
}

/**
 * How long a worker that claimed a node waits for the job's attempt to be recorded: the scheduler
 * queues a node while it stores its `node/started` (ms).
 */
const STARTED_WAIT_MS = 2_000;
/** The longest pause between two looks for it (ms). */
const RECHECK_PAUSE_MS = 10;
const CURRENT_ATTEMPT_EVENT_TYPES = [...NODE_TRANSITION_EVENT_TYPES, 'attempt/finished'] as const;

/**
 * The nodes whose job's attempt is the node's current one: started, not yet settled, no outcome
 * committed for it. An attempt not recorded yet is waited for (`STARTED_WAIT_MS`), then taken as
 * never begun. One read of all the nodes' transitions per look.
 */
async function currentAttempts(db: Kysely<Database>, runId: string, jobs: readonly NodeJob[]): Promise<Set<string>> {
  const current = new Set<string>();
  const startedBy = performance.now() + STARTED_WAIT_MS;
  let open = jobs;
  // Short pauses: the scheduler's write is usually tens of milliseconds away, and the node's hop waits for every one.
  for (let pause = 2; open.length > 0; pause = Math.min(pause * 2, RECHECK_PAUSE_MS)) {
    const events = await readEvents(db, runId, { nodeIds: open.map((job) => job.nodeId), types: CURRENT_ATTEMPT_EVENT_TYPES });
    const states = nodeStatesFromEvents(events);
    const pending = new PendingResults().fold(events);
    const late = performance.now() >= startedBy;
    open = open.filter((job) => {
      const state = states.get(job.nodeId);
      if ((state?.attempts ?? 0) < job.attempt && !late) return true;
      if (state?.status === 'running' && state.attempts === job.attempt && !pending.has(job.nodeId)) current.add(job.nodeId);
      return false;
    });
    if (open.length > 0) await sleep(pause);
  }
  return current;
}
