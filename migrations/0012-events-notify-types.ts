import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect-of.js';

/**
 * PostgreSQL only: the `dagent_events` notification of a statement that inserts a run's events
 * names the event types it inserted, after the run id and a space (`r-1a2b node/started,attempt/claimed`),
 * so a process that follows only some types (a worker's watch of a run's control events, a node's
 * steering) skips the reads that would find none. Listeners take a payload without a space as
 * "any type" (0007's form).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`
    create or replace function dagent_events_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dagent_events', inserted.run_id || ' ' || inserted.types)
      from (select run_id, string_agg(distinct type, ',') as types from new_events group by run_id) as inserted;
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`
    create or replace function dagent_events_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dagent_events', inserted.run_id) from (select distinct run_id from new_events) as inserted;
      return null;
    end $$`.execute(db);
}
