import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { ClaimFence } from '../agent/tool-runtime.js';
import { dialectOf } from '../../migrations/index.js';
import type { Database, NodeClaimsTable } from '../db/database.js';
import { immediateTransaction } from '../run/storage/immediate-transaction.js';
import { isHolderAlive } from '../run/ownership/lease-holder.js';
import type { AppendFence } from '../session/event-log.js';
import { ClaimExpiredError, ClaimTakenOverError, StaleClaimError, type ClaimLostError } from './claim-lost.js';

/** A worker renews its claim of a node every quarter of this; an unrenewed claim is lost after it. */
export const DEFAULT_NODE_CLAIM_TTL_MS = 15_000;

/**
 * What a worker keeps of its claim's time as a safety margin (an eighth of the TTL): it stops
 * acting (its commands are killed) that long before another worker may take the node over.
 */
export const claimSafetyMarginMs = (ttlMs: number): number => Math.floor(ttlMs / 8);

export interface NodeClaimHolder {
  readonly worker: string;
  readonly pid: number;
  readonly host: string;
  readonly token: number;
  readonly alive: boolean;
}

export interface ClaimNodeOptions {
  readonly worker: string;
  readonly ttlMs?: number;
  readonly pid?: number;
  readonly host?: string;
}

export async function readNodeClaim(db: Kysely<Database>, runId: string, nodeId: string, now: Date = new Date()): Promise<NodeClaimHolder | undefined> {
  const row = await db.selectFrom('node_claims').selectAll().where('run_id', '=', runId).where('node_id', '=', nodeId).executeTakeFirst();
  return row === undefined ? undefined : holderOf(row, now);
}

/** The claims of several nodes of a run, in one query (nodes never claimed are absent). */
export async function readNodeClaims(db: Kysely<Database>, runId: string, nodeIds: readonly string[], now: Date = new Date()): Promise<Map<string, NodeClaimHolder>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await db.selectFrom('node_claims').selectAll().where('run_id', '=', runId).where('node_id', 'in', [...nodeIds]).execute();
  return new Map(rows.map((row) => [row.node_id, holderOf(row, now)]));
}

/**
 * Claims a node for one worker: the next fencing token, or the live holder when another worker
 * still has it. One statement (an upsert that takes the row only when it is free: never claimed,
 * released or expired) in the usual case; a claim that looks held is decided in one write
 * transaction (as `claimRun` does for a run), which also sees a holder of this host whose process
 * is gone, or one whose write under the fence held this statement off until its claim ran out.
 */
export async function claimNode(db: Kysely<Database>, runId: string, nodeId: string, options: ClaimNodeOptions): Promise<NodeClaim | NodeClaimHolder> {
  const ttlMs = options.ttlMs ?? DEFAULT_NODE_CLAIM_TTL_MS;
  const holder = claimantOf(options);
  for (;;) {
    const claimed = await claimOnce(db, runId, nodeId, holder, ttlMs);
    // Undefined: the row was deleted between the two statements (its run was reset); try again.
    if (claimed !== undefined) return claimed;
  }
}

async function claimOnce(db: Kysely<Database>, runId: string, nodeId: string, holder: Claimant, ttlMs: number): Promise<NodeClaim | NodeClaimHolder | undefined> {
  // By this process's monotonic clock, the claim surely lasts `ttlMs` from before its statement.
  const startedAt = performance.now();
  const [taken] = await takeFreeClaims(db, runId, [nodeId], holder, ttlMs);
  if (taken !== undefined) return new NodeClaim(db, runId, nodeId, taken.token, ttlMs, startedAt);
  const claimed = await claimHeldNode(db, runId, nodeId, holder, ttlMs);
  return typeof claimed === 'number' ? new NodeClaim(db, runId, nodeId, claimed, ttlMs, startedAt) : claimed;
}

/**
 * Claims several nodes of a run for one worker (the jobs it took together): the free ones in one
 * statement, each held one by one as `claimNode` does. Each node once; a failed statement fails all.
 */
export async function claimNodes(db: Kysely<Database>, runId: string, nodeIds: readonly string[], options: ClaimNodeOptions): Promise<Map<string, NodeClaim | NodeClaimHolder>> {
  const ttlMs = options.ttlMs ?? DEFAULT_NODE_CLAIM_TTL_MS;
  const holder = claimantOf(options);
  const startedAt = performance.now();
  // In node order: two workers taking overlapping sets lock the rows in the same order.
  const unique = [...new Set(nodeIds)].sort();
  const claims = new Map<string, NodeClaim | NodeClaimHolder>();
  for (const taken of await takeFreeClaims(db, runId, unique, holder, ttlMs)) claims.set(taken.nodeId, new NodeClaim(db, runId, taken.nodeId, taken.token, ttlMs, startedAt));
  for (const nodeId of unique) if (!claims.has(nodeId)) claims.set(nodeId, await claimNode(db, runId, nodeId, options));
  return claims;
}

/** One upsert (`freeClaimsUpsert`): the next token of each node whose row is free. */
async function takeFreeClaims(db: Kysely<Database>, runId: string, nodeIds: readonly string[], holder: Claimant, ttlMs: number): Promise<{ readonly nodeId: string; readonly token: number }[]> {
  const rows = await freeClaimsUpsert(db, runId, nodeIds, holder, ttlMs).execute();
  return rows.map((row) => ({ nodeId: row.node_id, token: Number(row.token) }));
}

/**
 * The upsert that claims the free nodes among `nodeIds` (never claimed, released or expired) with
 * their next token, held rows left as they are; it returns each claimed node and its token. Given
 * the nodes in order, it locks their rows in that order. A worker's claim round on PostgreSQL runs
 * it inside its one statement (`claimAndRecord`).
 */
export function freeClaimsUpsert(db: Kysely<Database>, runId: string, nodeIds: readonly string[], holder: Claimant, ttlMs: number) {
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  return db
    .insertInto('node_claims')
    .values(nodeIds.map((nodeId) => ({ run_id: runId, node_id: nodeId, token: 1, ...holder, expires_at: expiresAt, released_at: null })))
    .onConflict((conflict) =>
      conflict
        .columns(['run_id', 'node_id'])
        .doUpdateSet((eb) => ({
          token: eb('node_claims.token', '+', 1),
          worker: eb.ref('excluded.worker'),
          pid: eb.ref('excluded.pid'),
          host: eb.ref('excluded.host'),
          expires_at: eb.ref('excluded.expires_at'),
          released_at: null,
        }))
        .where((eb) => eb.or([eb('node_claims.released_at', 'is not', null), eb('node_claims.expires_at', '<=', now.toISOString())])),
    )
    .returning(['node_id', 'token']);
}

/** Who claims, as a claim row names its holder: `options`' worker, this process's pid and host unless given. */
export function claimantOf(options: ClaimNodeOptions): Claimant {
  return { worker: options.worker, pid: options.pid ?? process.pid, host: options.host ?? hostname() };
}

export interface Claimant {
  readonly worker: string;
  readonly pid: number;
  readonly host: string;
}

/** The claim of a node whose row says it is held, in one write transaction: the holder's, unless it is gone. */
async function claimHeldNode(db: Kysely<Database>, runId: string, nodeId: string, claimant: Claimant, ttlMs: number): Promise<number | NodeClaimHolder | undefined> {
  return immediateTransaction(db, async (transaction) => {
    let select = transaction.selectFrom('node_claims').selectAll().where('run_id', '=', runId).where('node_id', '=', nodeId);
    if (dialectOf(db as Kysely<unknown>) === 'postgres') select = select.forUpdate();
    const row = await select.executeTakeFirst();
    if (row === undefined) return undefined;
    // The time once the row is ours: the lock may have been waited for (a holder's write under its fence).
    const at = new Date();
    const holder = holderOf(row, at);
    if (holder.alive) return holder;
    const token = holder.token + 1;
    await transaction
      .updateTable('node_claims')
      .set({ token, ...claimant, expires_at: new Date(at.getTime() + ttlMs).toISOString(), released_at: null })
      .where('run_id', '=', runId)
      .where('node_id', '=', nodeId)
      .where('token', '=', holder.token)
      .execute();
    return token;
  });
}

/**
 * A worker's claim of a node: renewed while the attempt runs, checked inside the commit of its
 * outcome and of every event and file write of the node (`ClaimFence`).
 */
export class NodeClaim implements ClaimFence {
  readonly #db: Kysely<Database>;
  readonly #lost = new AbortController();
  readonly #renewed = new Set<() => void>();
  #timer: NodeJS.Timeout | undefined;
  #released = false;
  /** Until when (monotonic, ms) this process may act on the claim: the start of its last renewal plus the TTL. */
  #validUntil: number;

  constructor(db: Kysely<Database>, readonly runId: string, readonly nodeId: string, readonly token: number, readonly ttlMs: number, claimedAt: number = performance.now()) {
    this.#db = db;
    this.#validUntil = claimedAt + ttlMs;
  }

  /** Aborts when a renewal finds the claim taken over (this worker was presumed dead), or it expires by this process's clock. */
  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  remainingMs(): number {
    if (this.#lost.signal.aborted || this.#released) return 0;
    return Math.max(0, this.#validUntil - claimSafetyMarginMs(this.ttlMs) - performance.now());
  }

  onRenew(listener: () => void): () => void {
    this.#renewed.add(listener);
    return () => this.#renewed.delete(listener);
  }

  /**
   * One write under the fence: in a transaction that holds the claim's row (`assertCurrent`), so a
   * worker taking the node over waits until the write is done and then puts the files back; a
   * stale or expired claim throws before writing.
   */
  async fence<T>(write: () => Promise<T>): Promise<T> {
    this.assertHeld();
    return this.#db.transaction().execute(async (transaction) => {
      await this.assertCurrent(transaction);
      this.assertHeld();
      return write();
    });
  }

  /**
   * Throws unless the claim is current in the store and unexpired by this process's clock (nothing
   * held afterwards). One autocommitted statement: on PostgreSQL its `FOR UPDATE` still waits for
   * a takeover being written and sees its outcome, then lets go at once, as the transaction around
   * it did in three round trips.
   */
  async ensureCurrent(): Promise<void> {
    this.assertHeld();
    await this.assertCurrent(this.#db);
    this.assertHeld();
  }

  async renew(): Promise<boolean> {
    if (this.#released) return false;
    const startedAt = performance.now();
    const held = await this.#extend();
    if (!held || this.#lost.signal.aborted) return held;
    // A renewal that comes back after this worker's deadline is too late: its command may have
    // been killed already (the watchdog), so the attempt is given up, not carried on.
    if (this.#expired()) {
      this.#lose(new ClaimExpiredError(this.runId, this.nodeId, this.token));
      return false;
    }
    this.#validUntil = Math.max(this.#validUntil, startedAt + this.ttlMs);
    for (const listener of this.#renewed) listener();
    return true;
  }

  async #extend(): Promise<boolean> {
    const result = await this.#db
      .updateTable('node_claims')
      .set({ expires_at: new Date(Date.now() + this.ttlMs).toISOString() })
      .where('run_id', '=', this.runId)
      .where('node_id', '=', this.nodeId)
      .where('token', '=', this.token)
      .where('released_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  keepAlive(): this {
    this.#timer = setInterval(() => {
      // First by this process's own clock: a worker that was paused, or could not renew, stops here.
      if (this.#expired()) return this.#lose(new ClaimExpiredError(this.runId, this.nodeId, this.token));
      this.renew().then(
        (held) => {
          if (!held && !this.#released) this.#lose(new ClaimTakenOverError(this.runId, this.nodeId, this.token));
        },
        // A store hiccup: the next tick tries again, until the claim runs out by this process's clock.
        () => undefined,
      );
    }, Math.max(10, Math.floor(this.ttlMs / 4)));
    this.#timer.unref();
    return this;
  }

  #expired(): boolean {
    return !this.#released && performance.now() >= this.#validUntil - claimSafetyMarginMs(this.ttlMs);
  }

  /**
   * Throws (`ClaimLostError`) when this process may no longer act on the claim: it was taken over,
   * or ran out by this process's clock (a stalled process). No store round trip: a stalled worker
   * whose claim nobody took yet still writes nothing, so its node is taken over, not failed.
   */
  assertHeld(): void {
    if (this.#lost.signal.aborted) throw this.#lost.signal.reason as ClaimLostError;
    if (this.#expired()) throw new ClaimExpiredError(this.runId, this.nodeId, this.token);
  }

  #lose(reason: ClaimLostError): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (!this.#lost.signal.aborted) this.#lost.abort(reason);
  }

  /**
   * The fence, inside the transaction that commits the outcome: throws `StaleClaimError` unless
   * this token is still the node's. The row is locked (PostgreSQL) or the database write-locked
   * (SQLite, after the event insert), so no claim can slip in before the commit.
   */
  async assertCurrent(transaction: Kysely<Database>): Promise<void> {
    let select = transaction.selectFrom('node_claims').select(['token', 'released_at']).where('run_id', '=', this.runId).where('node_id', '=', this.nodeId);
    if (dialectOf(transaction as Kysely<unknown>) === 'postgres') select = select.forUpdate();
    const row = await select.executeTakeFirst();
    const current = row === undefined ? 0 : Number(row.token);
    if (current !== this.token || row?.released_at !== null) throw new StaleClaimError(this.runId, this.nodeId, this.token, current);
  }

  /** This claim as the fence of an event append (`AppendOptions.fence`). */
  appendFence(): AppendFence {
    return { claims: [{ nodeId: this.nodeId, token: this.token }], check: (transaction) => this.assertCurrent(transaction), admit: () => this.assertHeld() };
  }

  /**
   * The fence of the node's outcome, the last append under this claim: the statement that stores
   * it releases the claim too (PostgreSQL), one statement fewer per node; where it did not,
   * `release` does it after.
   */
  outcomeFence(): AppendFence {
    const claim = { nodeId: this.nodeId, token: this.token };
    return { ...this.appendFence(), releases: [claim], released: () => this.#releasedWith() };
  }

  /** Released (by the statement that stored the outcome, or about to be): renewals stop. */
  #releasedWith(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#renewed.clear();
    this.#released = true;
  }

  /**
   * Stops renewing and releases the claim. The claims a worker releases in the same turn of its
   * event loop (the nodes whose grouped appends committed together) go in one statement.
   */
  async release(): Promise<void> {
    const already = this.#released;
    this.#releasedWith();
    if (already) return;
    await releasesOf(this.#db).add({ runId: this.runId, nodeId: this.nodeId, token: this.token });
  }
}

interface Release {
  readonly runId: string;
  readonly nodeId: string;
  readonly token: number;
}

/** The releases asked for on one database handle in one turn of the event loop, made in one statement. */
class ClaimReleases {
  readonly #db: Kysely<Database>;
  #batch: { release: Release; settle: (error?: unknown) => void }[] = [];

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  add(release: Release): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#batch.length === 0) setImmediate(() => void this.#flush());
      this.#batch.push({ release, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#batch.splice(0);
    const error = await releaseClaims(this.#db, batch.map((entry) => entry.release)).then(
      () => undefined,
      (failure: unknown) => failure ?? new Error('releasing node claims failed'),
    );
    for (const entry of batch) entry.settle(error);
  }
}

const claimReleases = new WeakMap<Kysely<Database>, ClaimReleases>();

function releasesOf(db: Kysely<Database>): ClaimReleases {
  let releases = claimReleases.get(db);
  if (releases === undefined) {
    releases = new ClaimReleases(db);
    claimReleases.set(db, releases);
  }
  return releases;
}

/** Releases these claims (each only while its token is current and unreleased) in one statement. */
async function releaseClaims(db: Kysely<Database>, releases: readonly Release[]): Promise<void> {
  const now = new Date().toISOString();
  await db
    .updateTable('node_claims')
    .set({ released_at: now, expires_at: now })
    .where('released_at', 'is', null)
    .where((eb) => eb.or(releases.map((release) => eb.and([eb('run_id', '=', release.runId), eb('node_id', '=', release.nodeId), eb('token', '=', release.token)]))))
    .execute();
}

/** Several claims as the fence of one append: it commits only if every one is current, and a refusal is the first stale one's error. */
export function allClaimsFence(claims: readonly NodeClaim[]): AppendFence {
  return {
    claims: claims.map((claim) => ({ nodeId: claim.nodeId, token: claim.token })),
    check: async (transaction) => {
      for (const claim of claims) await claim.assertCurrent(transaction);
    },
    admit: () => claims.forEach((claim) => claim.assertHeld()),
  };
}

function holderOf(row: NodeClaimsTable, now: Date): NodeClaimHolder {
  return { worker: row.worker, pid: row.pid, host: row.host, token: Number(row.token), alive: isHolderAlive(row, now) };
}
