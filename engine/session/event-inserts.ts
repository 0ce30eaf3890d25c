import { sql, type Kysely } from 'kysely';
import { PreparedQuery } from '../db/prepared-query.js';
import { parametersAsWritten } from '../db/written-parameters.js';
import type { Database } from '../db/database.js';
import { eventFromDraftRow } from './event-row.js';
import { appendInOneStatement, type AppendRow } from './one-statement-append.js';
import type { SessionEvent } from './event-types.js';

/** An event validated and serialised for the store, before it has a seq: the row, and its payload as parsed. */
export interface PendingRow extends AppendRow {
  readonly parsedPayload: unknown;
}

/** Unique-violation retries of an insert that took a seq another writer took first (PostgreSQL). */
export const MAX_SEQ_CONFLICT_RETRIES = 20;

/**
 * INSERT … SELECT max(seq) + 1: the seq is taken under the write lock, in one statement. SQLite
 * has one writer, so it cannot collide; two PostgreSQL writers of one run can, and the loser
 * retries with the next seq (outside a transaction; inside one the caller's transaction retries).
 */
export async function insertEvent(db: Kysely<Database>, row: PendingRow): Promise<SessionEvent> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await insertEventOnce(db, row);
    } catch (error) {
      const canRetry = !db.isTransaction && attempt < MAX_SEQ_CONFLICT_RETRIES && isUniqueViolation(error);
      if (!canRetry) throw error;
    }
  }
}

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown }).code === '23505';
}

async function insertEventOnce(db: Kysely<Database>, row: PendingRow): Promise<SessionEvent> {
  const result = await INSERT_NEXT_EVENT.execute<StoredPayload>(db, row);
  const stored = result.rows[0]!;
  return eventFromDraftRow(asStored(row, stored.payload), Number(stored.seq));
}

/** What an insert returns: the seq, and the payload as the store wrote it. */
interface StoredPayload {
  readonly seq: number | string;
  readonly payload: string;
}

/** `row` with the payload the store kept: the same row unless the store redacted a secret from it. */
function asStored(row: PendingRow, payload: string): PendingRow {
  if (payload === row.payload) return row;
  return { ...row, payload, parsedPayload: JSON.parse(payload) as unknown };
}

/**
 * Rows after the first of a transaction: the write lock is held, so their seqs follow directly.
 * They go in as multi-row inserts of prepared sizes (64, 16, 4, 1): a group of node transitions
 * becomes a handful of statements instead of one per event.
 */
export async function insertFollowing(db: Kysely<Database>, rows: readonly PendingRow[], previousSeq: number): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  let index = 0;
  while (index < rows.length) {
    const size = INSERT_SIZES.find((candidate) => candidate <= rows.length - index)!;
    const parameters: unknown[] = [];
    for (let offset = 0; offset < size; offset += 1) {
      const row = rows[index + offset]!;
      const seq = previousSeq + index + offset + 1;
      parameters.push(row.run_id, seq, row.node_id, row.turn, row.step, row.type, row.payload, row.surface_op, row.source_event_seqs, row.created_at, row.version);
    }
    await insertEvents(size).executeInOrder(db, parameters);
    // No RETURNING: the payloads as stored are the parameters as the store's edge wrote them.
    const written = parametersAsWritten(parameters);
    for (let offset = 0; offset < size; offset += 1) {
      const row = rows[index + offset]!;
      const seq = previousSeq + index + offset + 1;
      events.push(eventFromDraftRow(asStored(row, written[offset * EVENT_FIELD_COUNT + PAYLOAD_FIELD] as string), seq));
    }
    index += size;
  }
  return events;
}

const INSERT_SIZES = [64, 16, 4, 1] as const;
const EVENT_FIELD_COUNT = 11;
/** Where a row's payload is among its fields. */
const PAYLOAD_FIELD = 6;
const insertStatements = new Map<number, PreparedQuery<string>>();

/** A prepared insert of `size` events with known seqs; its parameters go row by row, in the column order above. */
function insertEvents(size: number): PreparedQuery<string> {
  let statement = insertStatements.get(size);
  if (statement === undefined) {
    statement = new PreparedQuery<string>((db, param) =>
      db.insertInto('events').values(
        Array.from({ length: size }, (_, offset) => {
          const at = (field: number): string => param(String(offset * EVENT_FIELD_COUNT + field));
          return {
            run_id: at(0),
            seq: sql<number>`cast(${at(1)} as integer)`,
            node_id: at(2),
            turn: sql<number>`cast(${at(3)} as integer)`,
            step: sql<number>`cast(${at(4)} as integer)`,
            type: at(5),
            payload: at(PAYLOAD_FIELD),
            surface_op: at(7),
            source_event_seqs: at(8),
            created_at: at(9),
            version: sql<number>`cast(${at(10)} as integer)`,
          };
        }),
      ),
    );
    insertStatements.set(size, statement);
  }
  return statement;
}

export type RowField = Exclude<keyof PendingRow, 'parsedPayload'>;

/** The next seq of the run, taken in the same statement that inserts the event. */
const INSERT_NEXT_EVENT = new PreparedQuery<RowField>((db, param) =>
  db
    .insertInto('events')
    .columns(['run_id', 'seq', 'node_id', 'turn', 'step', 'type', 'payload', 'surface_op', 'source_event_seqs', 'created_at', 'version'])
    .expression(
      // The run's last seq from a scalar subquery: SQLite finds that max in the primary key at
      // once, where an aggregate over the events themselves (beside the other columns) read every
      // event of the run, 25 µs per append at 20 000 events and growing.
      db.selectNoFrom([
        sql<string>`cast(${param('run_id')} as text)`.as('run_id'),
        sql<number>`coalesce((select max(seq) from events where run_id = ${param('run_id')}), 0) + 1`.as('seq'),
        sql<string | null>`cast(${param('node_id')} as text)`.as('node_id'),
        sql<number>`cast(${param('turn')} as integer)`.as('turn'),
        sql<number>`cast(${param('step')} as integer)`.as('step'),
        sql<string>`cast(${param('type')} as text)`.as('type'),
        sql<string>`cast(${param('payload')} as text)`.as('payload'),
        sql<string | null>`cast(${param('surface_op')} as text)`.as('surface_op'),
        sql<string | null>`cast(${param('source_event_seqs')} as text)`.as('source_event_seqs'),
        sql<string>`cast(${param('created_at')} as text)`.as('created_at'),
        sql<number>`cast(${param('version')} as integer)`.as('version'),
      ]),
    )
    .returning(['seq', 'payload']),
);

/** The events a one-statement append stored: each row with its seq and the payload as the store wrote it. */
export function storedEvents(rows: readonly PendingRow[], stored: readonly { readonly seq: number; readonly payload: string }[]): SessionEvent[] {
  return stored.map((inserted, index) => eventFromDraftRow(asStored(rows[index]!, inserted.payload), inserted.seq));
}

/** Compiles every insert statement of the log for `db`'s dialect ahead of the first appends that use them. */
export function warmInsertStatements(db: Kysely<Database>): void {
  INSERT_NEXT_EVENT.compileFor(db);
  for (const size of INSERT_SIZES) insertEvents(size).compileFor(db);
}

/** SQLite: the first insert takes the write lock and the next seq; the rest follow it in a few multi-row statements. */
export async function insertAllSqlite(db: Kysely<Database>, rows: readonly PendingRow[]): Promise<SessionEvent[]> {
  const first = await insertEvent(db, rows[0]!);
  return [first, ...(await insertFollowing(db, rows.slice(1), first.seq))];
}

/** PostgreSQL, under the run's append lock (`lockRunAppends`): every row in one statement (a wide stage's starts were six). */
export async function insertAllPostgres(db: Kysely<Database>, rows: readonly PendingRow[]): Promise<SessionEvent[]> {
  const result = await appendInOneStatement(db, rows);
  if (result.refused) throw new Error('an append without a fence was refused');
  return storedEvents(rows, result.stored);
}

/**
 * PostgreSQL has no single writer: two transactions appending to one run would both read the same
 * max(seq) and one would fail on the primary key. A transaction-scoped advisory lock on the run
 * makes the appends of one run take turns (other runs are not held up); it is released at commit.
 */
export async function lockRunAppends(db: Kysely<Database>, runId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`dagent events ${runId}`}))`.execute(db);
}
