import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect-of.js';

/**
 * PostgreSQL only: each run's last seq in a row of its own (`run_seqs`), which the statement that
 * appends events moves on in the same statement. Two appends to one run at once (a worker's and
 * the scheduler's) took the same `max(seq) + 1`: the later one waited for the earlier to commit,
 * failed on the primary key and was sent again. On the row, it waits for the earlier the same way
 * and then goes on after it. Filled from the events already stored; a seq an older process wrote
 * past the row is caught up with by the next append (it takes the greater of the two).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`create table run_seqs (run_id text primary key, seq bigint not null)`.execute(db);
  await sql`insert into run_seqs (run_id, seq) select run_id, max(seq) from events group by run_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`drop table run_seqs`.execute(db);
}
