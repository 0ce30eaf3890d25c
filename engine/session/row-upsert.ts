import { sql, type RawBuilder } from 'kysely';
import type { Database } from '../db/database.js';

/** The SQL type a value is cast to in the statement (PostgreSQL infers none from a bare parameter in VALUES). */
export type UpsertCast = 'text' | 'integer' | 'double precision';

/**
 * Rows an append writes beside its events, as data: INSERT … ON CONFLICT (`key`) DO UPDATE SET
 * `updated` from the new row. On PostgreSQL they join the events' insert in one autocommitted
 * statement (`appendInOneStatement`); no row may appear twice among one statement's upserts.
 */
export interface RowUpsert {
  readonly table: keyof Database;
  /** Each column with the type its values are cast to, in the order of a row's values. */
  readonly columns: readonly (readonly [column: string, cast: UpsertCast])[];
  /** The conflict target: the columns that name a row. */
  readonly key: readonly string[];
  /** The columns a row that exists already takes from the new one. */
  readonly updated: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
}

/** Each row of `upserts` by table and key, to tell two upserts of one row apart (`table key…` joined by NUL). */
export function upsertedRowKeys(upserts: readonly RowUpsert[]): string[] {
  const keys: string[] = [];
  for (const upsert of upserts) {
    const at = upsert.key.map((column) => upsert.columns.findIndex(([name]) => name === column));
    for (const row of upsert.rows) keys.push([upsert.table, ...at.map((index) => String(row[index]))].join('\u0000'));
  }
  return keys;
}

/**
 * The upsert as a statement of a data-modifying `WITH` whose events' insert is named `inserted`:
 * its rows go in only when the insert stored `insertedCount` rows (all of the append's events, so
 * a refused fence or a failed insert writes none), and only after that insert ran (a row lock is
 * never taken before the seqs, so it cannot meet a transaction that holds the run's append lock).
 */
export function upsertAfterInsert(upsert: RowUpsert, insertedCount: number): RawBuilder<unknown> {
  const names = upsert.columns.map(([column]) => sql.id(column));
  const values = sql.join(upsert.rows.map((row) => sql`(${sql.join(upsert.columns.map(([, cast], index) => sql`${row[index]}::${sql.raw(cast)}`))})`));
  const updates = sql.join(upsert.updated.map((column) => sql`${sql.id(column)} = excluded.${sql.id(column)}`));
  return sql`insert into ${sql.table(upsert.table)} (${sql.join(names)})
    select ${sql.join(names.map((name) => sql`v.${name}`))} from (values ${values}) as v(${sql.join(names)})
    where (select count(*) from inserted) = ${insertedCount}
    on conflict (${sql.join(upsert.key.map((column) => sql.id(column)))}) do update set ${updates}`;
}
