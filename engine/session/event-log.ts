import { sql, type Kysely, type Transaction } from 'kysely';
import { dialectOf } from '../../migrations/index.js';
import type { Database } from '../db/database.js';
import { InvalidEventError } from '../errors.js';
import { AppendListeners, type AppendListener } from './append-listeners.js';
import { insertAllPostgres, insertAllSqlite, insertEvent, isUniqueViolation, lockRunAppends, MAX_SEQ_CONFLICT_RETRIES, storedEvents, type PendingRow } from './event-inserts.js';
import { readEvents, type EventQuery } from './event-reads.js';
import { HeldRows } from './held-rows.js';
import { GroupedAppends, type GroupedAppend } from './grouped-appends.js';
import { appendInOneStatement, type ClaimConditions, type OneStatementResult } from './one-statement-append.js';
import { upsertedRowKeys, type RowUpsert } from './row-upsert.js';
import { KnownWrites } from './known-writes.js';
import { EVENT_PAYLOADS, EVENT_VERSIONS, isEventType, type EventDraft, type EventType, type SessionEvent } from './event-types.js';

export { readEvents, type EventQuery } from './event-reads.js';

/** A row a caller's statement stored (`EventLog.appendThrough`): its index among the rows it was given, its seq, its payload as stored. */
export interface StoredThrough {
  readonly index: number;
  readonly seq: number;
  readonly payload: string;
}

/** Work done in the same transaction as an append, e.g. updating the `nodes` projection. */
export type AppendEffects = (transaction: Transaction<Database>, events: readonly SessionEvent[]) => Promise<void>;

/**
 * A worker's claims that must be current for an append to commit: the node and token of each one's
 * row in `node_claims`, and the check that throws the claim's own error when one is not.
 */
export interface AppendFence extends ClaimConditions {
  check(transaction: Transaction<Database>): Promise<void>;
  /** Throws, before anything is sent, when the holder may no longer write by its own clock (a claim that ran out unrenewed). */
  admit?(): void;
  /** The statement that stored the append released `releases` too (PostgreSQL, one statement); else they are the caller's to release. */
  released?(): void;
}

export interface AppendOptions {
  readonly effects?: AppendEffects;
  /**
   * Everything `effects` writes, as rows to upsert, given the append's `createdAt`: with them an
   * append with effects is, on PostgreSQL, one autocommitted statement that inserts its events and
   * upserts the rows when all of them went in (no transaction: no begin, lock or commit round
   * trips). SQLite, a statement other writers kept refusing, and a transaction run `effects`;
   * so do the effects of an append whose `upserts` gives `undefined`.
   */
  readonly upserts?: (createdAt: string) => readonly RowUpsert[] | undefined;
  /**
   * Checked with the insert: on PostgreSQL in the same statement (or, with effects, before the
   * run's append lock is taken); on SQLite after the insert, under the write lock. The claim's
   * row stays locked until the commit.
   */
  readonly fence?: AppendFence;
}

/**
 * The append-only session log of one run. All nodes of a run write here; each event gets the
 * next `seq` of the run, gap-free, assigned by the database in the same statement that inserts
 * it (so two processes appending to one run cannot collide, and no read precedes the write lock).
 * An appended event, as returned and as its listeners (the dashboard, progress lines, sessions)
 * get it, is the stored one: with secrets redacted by the store, exactly what `log` shows later.
 */
export class EventLog {
  readonly #db: Kysely<Database>;
  #listeners = new AppendListeners();
  /** What this process knows of the run's writes, shared with this log's views. */
  #writes = new KnownWrites();
  /** Run inside every append's transaction (`withEffects`), before the caller's own effects. */
  #effects: AppendEffects | undefined;
  /** Checked in every append's transaction (`withFence`), as `AppendOptions.fence`. */
  #fence: AppendFence | undefined;
  /** Rows held back to go with the next append of their node (`hold`); shared with this log's views. */
  #held = new HeldRows();
  readonly #now: () => Date;
  readonly runId: string;
  /** PostgreSQL: appends of one run take a lock on the run first, so concurrent writers never race for a seq. */
  readonly #serialises: boolean;
  /**
   * This process's appends to the run that no claim fences, grouped while one is in flight (a group
   * commit): the nodes of a run append at once, and one transaction each cost SQLite a commit and
   * PostgreSQL a round trip, and met each other on the seqs.
   */
  readonly #grouped: GroupedAppends<EffectfulAppend, SessionEvent>;
  /**
   * PostgreSQL: this process's fenced appends to the run (a worker's nodes, each under its own
   * claim), shared with this log's views and grouped the same way: the appends made while one is
   * in flight go in one statement fenced by all their claims. A worker running a wide stage sent
   * each node's events alone, and its statements raced each other for the run's next seq.
   */
  #fencedGrouped: GroupedAppends<FencedAppend, SessionEvent>;

  constructor(db: Kysely<Database>, runId: string, options: { now?: () => Date } = {}) {
    this.#db = db;
    this.#serialises = dialectOf(db as Kysely<unknown>) === 'postgres';
    // SQLite's sends finish at once: its appends gather for the current turn of the event loop.
    this.#grouped = new GroupedAppends((appends) => this.#sendGroup(appends), { gather: !this.#serialises });
    this.#fencedGrouped = new GroupedAppends((appends) => this.#sendFencedGroup(appends));
    this.runId = runId;
    this.#now = options.now ?? (() => new Date());
  }

  get db(): Kysely<Database> {
    return this.#db;
  }

  /**
   * This log with `effects` run inside the transaction of every append made through it (a
   * worker's claim check, so a stale worker's events are refused); listeners are this log's.
   */
  withEffects(effects: AppendEffects): EventLog {
    return this.#view(bothEffects(this.#effects, effects), this.#fence);
  }

  /**
   * This log with `fence` checked with every append made through it (a worker's claim, so a
   * stale worker's events are refused), as `AppendOptions.fence`; listeners are this log's.
   */
  withFence(fence: AppendFence): EventLog {
    return this.#view(this.#effects, fence);
  }

  /** A view of this log: its listeners, what it knows and holds, its fenced group; its own effects and fence. */
  #view(effects: AppendEffects | undefined, fence: AppendFence | undefined): EventLog {
    const view = new EventLog(this.#db, this.runId, { now: this.#now });
    view.#listeners = this.#listeners;
    view.#writes = this.#writes;
    view.#held = this.#held;
    view.#effects = effects;
    view.#fence = fence;
    view.#fencedGrouped = this.#fencedGrouped;
    return view;
  }

  /**
   * Validates `draft` (now: an invalid one throws here) and holds it back, to be stored at the
   * front of the next append of its node made through this log or its views, in that append's
   * write, or by `release`: an attempt's marker goes with its instruction, one write where there
   * were two. The caller releases it before anything that must find it stored (a hook's command).
   */
  hold(draft: EventDraft): void {
    this.#held.hold(this.#validate(draft, this.#now().toISOString()));
  }

  /** Stores what is held for `nodeId` (`hold`), if anything is. */
  async release(nodeId: string | null): Promise<void> {
    const held = this.#held.take([nodeId]);
    if (held.length > 0) await this.#storeHeld(held);
  }

  /** Validates and stores one event; returns it with its `seq`. */
  async append<T extends EventType>(draft: EventDraft<T>, options: AppendOptions = {}): Promise<SessionEvent<T>> {
    const [event] = await this.appendMany([draft as unknown as EventDraft], options);
    return event as SessionEvent<T>;
  }

  /**
   * Stores several events in one transaction, in order, together with `options.effects`; what is
   * held for their nodes (`hold`) goes first, in the same write unless the append has effects of
   * its own (then in one before it).
   */
  async appendMany(drafts: readonly EventDraft[], options: AppendOptions = {}): Promise<SessionEvent[]> {
    // One clock reading for the events of one append: they are stored in one transaction.
    const createdAt = this.#now().toISOString();
    const rows = drafts.map((draft) => this.#validate(draft, createdAt));
    const held = this.#held.size === 0 ? [] : this.#held.take(rows.map((row) => row.node_id));
    if (held.length === 0) return this.#store(rows, options, createdAt);
    if (options.effects === undefined) return this.#storeHeld(held, rows, options, createdAt);
    await this.#storeHeld(held);
    return this.#store(rows, options, createdAt);
  }

  /**
   * `held`, then `rows`, in one write; the events of `rows`. Held again when the write fails: a
   * later append or `release` stores them.
   */
  async #storeHeld(held: readonly PendingRow[], rows: readonly PendingRow[] = [], options: AppendOptions = {}, createdAt?: string): Promise<SessionEvent[]> {
    try {
      return (await this.#store([...held, ...rows], options, createdAt)).slice(held.length);
    } catch (error) {
      this.#held.putBack(held);
      throw error;
    }
  }

  async #store(rows: readonly PendingRow[], options: AppendOptions, createdAt = this.#now().toISOString()): Promise<SessionEvent[]> {
    const effects = bothEffects(this.#effects, options.effects);
    const fence = options.fence ?? this.#fence;
    fence?.admit?.();
    // The rows stand for all the effects only when this log adds none of its own.
    const upserts = this.#serialises && this.#effects === undefined && options.effects !== undefined ? options.upserts?.(createdAt) : undefined;
    const append: EffectfulAppend = { rows, ...(effects === undefined ? {} : { effects }), ...(upserts === undefined ? {} : { upserts }) };
    let stored: SessionEvent[] | undefined;
    if (fence === undefined && !this.#db.isTransaction) stored = await this.#grouped.add(append);
    else if (this.#serialises && effects === undefined && !this.#db.isTransaction) stored = await this.#fencedGrouped.add({ ...append, fence: fence! });
    else {
      // A fenced append on PostgreSQL whose writes fit in the statement: one statement, no lock held between round trips.
      const statementUpserts = this.#db.isTransaction ? undefined : upsertsInOneStatement([append]);
      if (this.#serialises && statementUpserts !== undefined) stored = await this.#appendInOneStatement(rows, fence, statementUpserts);
      stored ??= await this.#appendInTransaction([append], fence);
    }
    this.#writes.noteAppended(stored);
    this.#listeners.notify(stored);
    return stored;
  }

  /**
   * Stores `drafts` through a statement of the caller's that may store only some of them (a
   * worker's claim round: its claims, their checks and their `attempt/claimed` in one statement,
   * an event only for a node claimed and current). `send` gets the validated rows (one clock
   * reading) and answers, for each row that went in, its index among them, its seq and its
   * payload as stored; it retries its own seq conflicts. What went in is this log's append like
   * any other (its listeners, what it knows); nothing held (`hold`) goes with it.
   */
  async appendThrough(drafts: readonly EventDraft[], send: (rows: readonly PendingRow[]) => Promise<readonly StoredThrough[]>): Promise<SessionEvent[]> {
    const createdAt = this.#now().toISOString();
    const rows = drafts.map((draft) => this.#validate(draft, createdAt));
    const went = [...(await send(rows))].sort((a, b) => a.seq - b.seq);
    if (went.length === 0) return [];
    const stored = storedEvents(went.map((row) => rows[row.index]!), went);
    this.#writes.noteAppended(stored);
    this.#listeners.notify(stored);
    return stored;
  }

  /** What this process knows of the writes to the run: its own appends through this log, and other processes' as heard. */
  get writes(): KnownWrites {
    return this.#writes;
  }

  /** `undefined` when other writers of the run took the seqs it tried too often: the caller takes the run's lock instead. */
  async #appendInOneStatement(rows: readonly PendingRow[], fence: AppendFence | undefined, upserts: readonly RowUpsert[] = []): Promise<SessionEvent[] | undefined> {
    for (let attempt = 0; attempt < ONE_STATEMENT_TRIES; attempt += 1) {
      let result: OneStatementResult;
      try {
        result = await appendInOneStatement(this.#db, rows, fence, upserts);
      } catch (error) {
        if (isUniqueViolation(error)) continue;
        throw error;
      }
      if (result.refused) {
        // The claim is not current: its own check says why (and throws); one that holds again is tried again.
        await this.#db.transaction().execute((transaction) => fence!.check(transaction));
        continue;
      }
      fence?.released?.();
      return storedEvents(rows, result.stored);
    }
    return undefined;
  }

  /**
   * One group's appends: one statement (PostgreSQL: with the rows of their effects, when those
   * are all rows), or one transaction when one of them has effects (one insert alone needs neither).
   */
  async #sendGroup(appends: readonly EffectfulAppend[]): Promise<SessionEvent[]> {
    const rows = appends.flatMap((append) => append.rows);
    if (this.#serialises) {
      const upserts = upsertsInOneStatement(appends);
      if (upserts === undefined) return this.#appendInTransaction(appends, undefined);
      return (await this.#appendInOneStatement(rows, undefined, upserts)) ?? (await this.#appendInTransaction(appends, undefined));
    }
    if (appends.some((append) => append.effects !== undefined)) return this.#appendInTransaction(appends, undefined);
    if (rows.length === 1) return [await insertEvent(this.#db, rows[0]!)];
    return this.#appendInTransaction(appends, undefined);
  }

  /**
   * PostgreSQL: fenced appends without effects, in one statement fenced by every one of their
   * claims, as one append is. A group refused because one of its claims is not current fails with
   * that claim's error, and `GroupedAppends` sends each again alone: only the stale claim's fails.
   */
  async #sendFencedGroup(appends: readonly FencedAppend[]): Promise<SessionEvent[]> {
    const fence = allFences(appends.map((append) => append.fence));
    return (await this.#appendInOneStatement(appends.flatMap((append) => append.rows), fence)) ?? (await this.#appendInTransaction(appends, fence));
  }

  /** The appends' rows in order in one transaction, each append's effects run with its own events; `fence` checked in it. */
  async #appendInTransaction(appends: readonly EffectfulAppend[], fence: AppendFence | undefined): Promise<SessionEvent[]> {
    const rows = appends.flatMap((append) => append.rows);
    for (let attempt = 0; ; attempt += 1) {
      try {
        const work = async (transaction: Kysely<Database>): Promise<SessionEvent[]> => {
          if (this.#serialises && fence !== undefined) await fence.check(transaction as Transaction<Database>);
          if (this.#serialises) await lockRunAppends(transaction, this.runId);
          const inserted = this.#serialises ? await insertAllPostgres(transaction, rows) : await insertAllSqlite(transaction, rows);
          if (!this.#serialises && fence !== undefined) await fence.check(transaction as Transaction<Database>);
          let offset = 0;
          for (const { rows: own, effects } of appends) {
            if (effects !== undefined) await effects(transaction as Transaction<Database>, inserted.slice(offset, offset + own.length));
            offset += own.length;
          }
          return inserted;
        };
        // Inside the caller's transaction, the work joins it (and that transaction retries on a conflict).
        if (this.#db.isTransaction) return await work(this.#db);
        return await this.#db.transaction().execute(work);
      } catch (error) {
        if (attempt >= MAX_SEQ_CONFLICT_RETRIES || !isUniqueViolation(error)) throw error;
      }
    }
  }

  /** Events of this run in seq order. */
  async read<T extends EventType = EventType>(query: EventQuery<T> = {}): Promise<SessionEvent<T>[]> {
    return readEvents(this.#db, this.runId, query);
  }

  /** Called after every committed append made through this log or its views. Returns an unsubscribe function. */
  onAppend(listener: AppendListener): () => void {
    return this.#listeners.add(listener);
  }

  /** `onAppend` for the events of one node (null: the run's own), called only for appends that hold some, with those alone. */
  onNodeAppend(nodeId: string | null, listener: AppendListener): () => void {
    return this.#listeners.addForNode(nodeId, listener);
  }

  #validate(draft: EventDraft, createdAt: string): PendingRow {
    if (!isEventType(draft.type)) throw new InvalidEventError(String(draft.type), 'unknown event type');
    const parsed = EVENT_PAYLOADS[draft.type].safeParse(draft.payload);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'payload'}: ${issue.message}`).join('; ');
      throw new InvalidEventError(draft.type, issues);
    }
    const surfaceOp = draft.surfaceOp;
    if (surfaceOp !== undefined && !(surfaceOp.op === 'replace' && surfaceOp.start <= surfaceOp.end)) {
      throw new InvalidEventError(draft.type, `bad surfaceOp ${JSON.stringify(surfaceOp)}`);
    }
    return {
      parsedPayload: parsed.data,
      run_id: this.runId,
      node_id: draft.nodeId ?? null,
      turn: draft.turn ?? 0,
      step: draft.step ?? 0,
      type: draft.type,
      payload: JSON.stringify(parsed.data),
      surface_op: surfaceOp === undefined ? null : JSON.stringify(surfaceOp),
      source_event_seqs: draft.sourceEventSeqs === undefined ? null : JSON.stringify(draft.sourceEventSeqs),
      created_at: createdAt,
      version: EVENT_VERSIONS[draft.type],
    };
  }
}

/** `first`, then `second`, in one transaction (either may be absent). */
function bothEffects(first: AppendEffects | undefined, second: AppendEffects | undefined): AppendEffects | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  return async (transaction, events) => {
    await first(transaction, events);
    await second(transaction, events);
  };
}

/** Several appends' fences as one: every claim must be current; a refusal is the first stale one's error. */
function allFences(fences: readonly AppendFence[]): AppendFence {
  if (fences.length === 1) return fences[0]!;
  const claims = new Map(fences.flatMap((fence) => fence.claims).map((claim) => [`${claim.nodeId}\u0000${claim.token}`, claim]));
  return {
    claims: [...claims.values()],
    releases: fences.flatMap((fence) => fence.releases ?? []),
    check: async (transaction) => {
      for (const fence of fences) await fence.check(transaction);
    },
    released: () => fences.forEach((fence) => fence.released?.()),
  };
}

/** A fenced append without effects: its rows and the claims that must be current for them to go in. */
interface FencedAppend extends GroupedAppend<PendingRow> {
  readonly fence: AppendFence;
}

/** An append's rows and what its transaction also writes (and, when they are all rows, those rows). */
interface EffectfulAppend extends GroupedAppend<PendingRow> {
  readonly effects?: AppendEffects;
  readonly upserts?: readonly RowUpsert[];
}

/**
 * The upserts that store the effects of `appends` in the statement of their events, or
 * `undefined` when they need a transaction: an append's effects are not all rows, or two of
 * the appends write one row (one statement may not change a row twice).
 */
function upsertsInOneStatement(appends: readonly EffectfulAppend[]): RowUpsert[] | undefined {
  const upserts: RowUpsert[] = [];
  for (const append of appends) {
    if (append.effects === undefined) continue;
    if (append.upserts === undefined) return undefined;
    upserts.push(...append.upserts);
  }
  const keys = upsertedRowKeys(upserts);
  return new Set(keys).size === keys.length ? upserts : undefined;
}

/** One-statement appends tried before an append waits for the run's lock instead (PostgreSQL). */
const ONE_STATEMENT_TRIES = 8;
