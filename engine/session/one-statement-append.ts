import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/database.js';
import { upsertAfterInsert, type RowUpsert } from './row-upsert.js';

/** A row as `EventLog` inserts it (its seq comes from the store). */
export interface AppendRow {
  readonly run_id: string;
  readonly node_id: string | null;
  readonly turn: number;
  readonly step: number;
  readonly type: string;
  readonly payload: string;
  readonly surface_op: string | null;
  readonly source_event_seqs: string | null;
  readonly created_at: string;
  readonly version: number;
}

/** A worker's claim that must be current for the rows to go in: the node's row in `node_claims`, with this token, unreleased. */
export interface ClaimCondition {
  readonly nodeId: string;
  readonly token: number;
}

/** Claims that must all be current for the rows to go in (a worker's appends for several nodes it claimed together). */
export interface ClaimConditions {
  readonly claims: readonly ClaimCondition[];
  /** Of `claims`, those released by the statement that stores the rows (a node's outcome: its claim is done with). */
  readonly releases?: readonly ClaimCondition[];
}

/** What one statement stored: each row's seq and payload as the store wrote it, in order; or `refused` when a claim was not current. */
export type OneStatementResult = { readonly refused: true } | { readonly refused: false; readonly stored: readonly { readonly seq: number; readonly payload: string }[] };

/**
 * The channel PostgreSQL notifies (with the run's id) when a statement stores a worker's outcome
 * (`attempt/finished`), as that statement commits. A run's scheduler listens there rather than to
 * every insert of the run (`dagent_events`): a worker's nodes append their messages all the time,
 * and each of those heard cost the scheduler a read of the log that found no outcome in it.
 */
export const OUTCOMES_NOTIFY_CHANNEL = 'dagent_outcomes';
const ANNOUNCED_EVENT_TYPES: ReadonlySet<string> = new Set(['attempt/finished']);

/**
 * PostgreSQL: appends `rows` (all of one run) in one autocommitted statement, taking the run's next
 * seqs from its row in `run_seqs` (`takeSeqs`): no transaction, no lock held across round trips.
 * With `fence`, the statement locks its claims' rows (`FOR UPDATE`, to its commit) and takes no
 * seq and inserts nothing unless every claim is still current — the same fence as a transaction
 * that checks them. A statement appending to the run while another does waits for the other's
 * commit on that row and takes the seqs after its, so a seq becomes visible only after every seq
 * before it has committed. A seq taken twice all the same (a process from before the row) fails
 * on the primary key with a unique violation, and the caller tries again. `upserts` go in with the rows, in
 * the same statement, only when every row went in (`upsertAfterInsert`), and so are the claims of
 * `fence.releases` released.
 */
export async function appendInOneStatement(db: Kysely<Database>, rows: readonly AppendRow[], fence?: ClaimConditions, upserts: readonly RowUpsert[] = []): Promise<OneStatementResult> {
  const runId = rows[0]!.run_id;
  const values = sql.join(
    rows.map(
      (row, index) =>
        sql`(${index}::integer, ${row.node_id}::text, ${row.turn}::integer, ${row.step}::integer, ${row.type}::text, ${row.payload}::text, ${row.surface_op}::text, ${row.source_event_seqs}::text, ${row.created_at}::text, ${row.version}::integer)`,
    ),
  );
  const claims = fence?.claims ?? [];
  const held =
    claims.length === 0
      ? undefined
      : sql`fence as (select 1 from node_claims where run_id = ${runId} and (${sql.join(claims.map((claim) => sql`(node_id = ${claim.nodeId} and token = ${claim.token})`), sql` or `)}) and released_at is null for update)`;
  const insert = sql`insert into events (run_id, seq, node_id, turn, step, type, payload, surface_op, source_event_seqs, created_at, version)
    select ${runId}::text, next.seq + 1 + v.ord, v.node_id, v.turn, v.step, v.type, v.payload, v.surface_op, v.source_event_seqs, v.created_at, v.version
    from (values ${values}) as v(ord, node_id, turn, step, type, payload, surface_op, source_event_seqs, created_at, version)
    cross join next
    returning seq, payload`;
  const next = sql`${held === undefined ? sql`with` : sql`with ${held},`} next as (${takeSeqs(runId, sql.lit(rows.length), claims.length === 0 ? sql`true` : sql`(select count(*) from fence) = ${claims.length}`)})`;
  const announces = rows.some((row) => ANNOUNCED_EVENT_TYPES.has(row.type));
  const releases = claims.length === 0 ? [] : (fence?.releases ?? []);
  // Only when the rows went in (a data-modifying part always runs: it is guarded, not referenced).
  const released =
    releases.length === 0
      ? sql``
      : sql`, released as (update node_claims set released_at = ${rows[0]!.created_at}, expires_at = ${rows[0]!.created_at} where run_id = ${runId} and released_at is null and (${sql.join(releases.map((claim) => sql`(node_id = ${claim.nodeId} and token = ${claim.token})`), sql` or `)}) and exists (select 1 from inserted))`;
  // Referenced by the final select, so that it runs; it notifies only when rows were inserted (delivered at commit).
  const announced = announces ? sql`, announced as (select pg_notify(${OUTCOMES_NOTIFY_CHANNEL}, ${runId}::text) from (select 1 from inserted limit 1) as stored)` : sql``;
  const fromInserted = announces ? sql`select seq, payload from inserted cross join (select count(*) from announced) as notified` : sql`select seq, payload from inserted`;
  const statement =
    upserts.length === 0 && !announces && releases.length === 0
      ? sql<StoredRow>`${next} ${insert}`
      : sql<StoredRow>`${next}, inserted as (${insert})${sql.join(upserts.map((upsert, index) => sql`, ${sql.id(`upserted_${index}`)} as (${upsertAfterInsert(upsert, rows.length)})`), sql``)}${announced}${released} ${fromInserted}`;
  const result = await statement.execute(db);
  if (result.rows.length === 0) return { refused: true };
  const stored = result.rows.map((row) => ({ seq: Number(row.seq), payload: row.payload })).sort((a, b) => a.seq - b.seq);
  return { refused: false, stored };
}

/**
 * The part of an append's statement that takes the run's next `count` seqs when `when` holds: it
 * moves the run's row in `run_seqs` on (migration 0014) and returns the seq before them. Another
 * statement appending to the run at once holds that row until it commits: this one waits for it,
 * then takes the seqs after its, where the two once took the same and the later failed on the
 * primary key. A run whose row is behind its events (written by a process from before the row)
 * goes on after the greater of the two.
 */
export function takeSeqs(runId: string, count: RawBuilder<unknown>, when: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`insert into run_seqs as taken (run_id, seq)
    select ${runId}::text, coalesce((select max(seq) from events where run_id = ${runId}), 0) + ${count} where ${when}
    on conflict (run_id) do update set seq = greatest(taken.seq, excluded.seq - ${count}) + ${count}
    returning seq - ${count} as seq`;
}

interface StoredRow {
  readonly seq: number | string;
  readonly payload: string;
}
