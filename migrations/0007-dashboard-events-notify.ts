import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect-of.js';

/**
 * PostgreSQL only: every statement that inserts events notifies `dagent_events` with each run id
 * it touched, at commit, so a dashboard in another process follows a run by LISTEN instead of
 * polling. SQLite followers watch `PRAGMA data_version` and need nothing in the schema.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`
    create or replace function dagent_events_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dagent_events', inserted.run_id) from (select distinct run_id from new_events) as inserted;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger events_notify after insert on events
    referencing new table as new_events
    for each statement execute function dagent_events_notify()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`drop trigger if exists events_notify on events`.execute(db);
  await sql`drop function if exists dagent_events_notify()`.execute(db);
}
