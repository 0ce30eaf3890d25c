import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import { dialectOf } from '../../../migrations/index.js';
import type { Database } from '../../db/database.js';
import { DagentError } from '../../errors.js';
import { immediateTransaction } from '../storage/immediate-transaction.js';
import { leaseHolderOf, type LeaseHolder } from './lease-holder.js';

/** A lease lasts this long unless renewed; its holder renews it every third of that. */
export const DEFAULT_RUN_LEASE_TTL_MS = 30_000;

/** A second process asked for a run that a live process holds. */
export class RunClaimedError extends DagentError {
  constructor(readonly runId: string, readonly holder: LeaseHolder) {
    const where = holder.host === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.host}`;
    super(`run ${runId} is already running (${where}); \`dagent cancel ${runId}\` stops it, --wait waits for it`);
  }
}

export interface ClaimRunOptions {
  readonly ttlMs?: number;
  readonly pid?: number;
  readonly host?: string;
  readonly now?: () => Date;
}

/**
 * Claims a run for this process in one write transaction: reads the lease row under the write
 * lock (`BEGIN IMMEDIATE` on SQLite, `FOR UPDATE` on PostgreSQL), refuses with `RunClaimedError`
 * while a live holder has it, and otherwise takes it with the next fencing token. A holder that
 * released it, whose lease expired, or whose pid is gone from this host is taken over.
 */
export async function claimRun(db: Kysely<Database>, runId: string, options: ClaimRunOptions = {}): Promise<RunLease> {
  const now = options.now ?? (() => new Date());
  const ttlMs = options.ttlMs ?? DEFAULT_RUN_LEASE_TTL_MS;
  const owner = randomUUID();
  const pid = options.pid ?? process.pid;
  const host = options.host ?? hostname();
  const claimed = await immediateTransaction(db, async (transaction) => {
    const at = now();
    // A free placeholder row (token 0, released) so PostgreSQL has a row to lock on a first claim.
    await transaction
      .insertInto('run_leases')
      .values({ run_id: runId, token: 0, owner: '', pid: 0, host: '', acquired_at: at.toISOString(), expires_at: at.toISOString(), released_at: at.toISOString() })
      .onConflict((conflict) => conflict.column('run_id').doNothing())
      .execute();
    let select = transaction.selectFrom('run_leases').selectAll().where('run_id', '=', runId);
    if (dialectOf(db as Kysely<unknown>) === 'postgres') select = select.forUpdate();
    const row = await select.executeTakeFirstOrThrow();
    const holder = leaseHolderOf(row, at);
    if (holder.alive) throw new RunClaimedError(runId, holder);
    const next = holder.token + 1;
    await transaction
      .updateTable('run_leases')
      .set({ token: next, owner, pid, host, acquired_at: at.toISOString(), expires_at: new Date(at.getTime() + ttlMs).toISOString(), released_at: null })
      .where('run_id', '=', runId)
      .where('token', '=', holder.token)
      .execute();
    const last = await transaction.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).where('run_id', '=', runId).executeTakeFirst();
    return { token: next, seenSeq: Number(last?.seq ?? 0) };
  });
  return new RunLease(db, runId, { owner, ...claimed, ttlMs, now });
}

/**
 * A claim this process holds: renewed in the background while the run runs (`keepAlive`),
 * released at its end. `lost` aborts when a renewal finds the lease taken over or expired.
 */
export class RunLease {
  readonly #db: Kysely<Database>;
  readonly #now: () => Date;
  readonly #lost = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #released = false;
  readonly runId: string;
  readonly owner: string;
  readonly token: number;
  readonly ttlMs: number;
  /**
   * The last seq of the run's log when this lease was taken: what is appended after it (a cancel
   * request, even one that comes before this process's `run/started`) is for this holder.
   */
  readonly seenSeq: number;

  constructor(db: Kysely<Database>, runId: string, options: { owner: string; token: number; seenSeq?: number; ttlMs: number; now: () => Date }) {
    this.#db = db;
    this.#now = options.now;
    this.runId = runId;
    this.owner = options.owner;
    this.token = options.token;
    this.seenSeq = options.seenSeq ?? 0;
    this.ttlMs = options.ttlMs;
  }

  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  /** Pushes the expiry a full TTL ahead; false when another claim took the run (or it was released). */
  async renew(): Promise<boolean> {
    if (this.#released) return false;
    const result = await this.#db
      .updateTable('run_leases')
      .set({ expires_at: new Date(this.#now().getTime() + this.ttlMs).toISOString() })
      .where('run_id', '=', this.runId)
      .where('token', '=', this.token)
      .where('released_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Renews every third of the TTL until released; a failed renewal (taken over) aborts `lost`. */
  keepAlive(): this {
    const tick = (): void => {
      this.renew().then(
        (held) => {
          if (!held && !this.#released) this.#lose(new Error(`run ${this.runId}: its lease (token ${this.token}) was taken over by another process`));
        },
        // A store hiccup: the next tick tries again; the lease stays valid until it expires.
        () => undefined,
      );
    };
    this.#timer = setInterval(tick, Math.max(10, Math.floor(this.ttlMs / 3)));
    this.#timer.unref();
    return this;
  }

  /** Whether this claim is still the run's current one (a fence for commits made on its behalf). */
  async isCurrent(db: Kysely<Database> = this.#db): Promise<boolean> {
    const row = await db.selectFrom('run_leases').select(['token', 'released_at']).where('run_id', '=', this.runId).executeTakeFirst();
    return row !== undefined && Number(row.token) === this.token && row.released_at === null;
  }

  /** Lets the run go; a later claim (resume, another runner) takes it at once. Idempotent. */
  async release(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#released) return;
    this.#released = true;
    const at = this.#now().toISOString();
    await this.#db
      .updateTable('run_leases')
      .set({ released_at: at, expires_at: at })
      .where('run_id', '=', this.runId)
      .where('token', '=', this.token)
      .where('released_at', 'is', null)
      .execute();
  }

  #lose(reason: Error): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#lost.abort(reason);
  }
}
