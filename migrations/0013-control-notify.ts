import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect-of.js';

/**
 * The event types another process acts on: a worker readies a dispatched run, stops a cancelled
 * or finished one, hands a node what it is told, pauses it, answers its approval wait; a scheduler
 * hears its workers' reports. Listed here as they were when this migration was written (a later
 * change of the set is a migration of its own); `CONTROL_EVENT_TYPES` in the engine is the same list.
 */
export const CONTROL_TYPES_0013 = [
  'dispatch/started',
  'run/cancel-requested',
  'run/succeeded',
  'run/failed',
  'run/cancelled',
  'run/paused',
  'node/told',
  'node/pause-requested',
  'node/resume-requested',
  'approval/granted',
  'approval/denied',
  'budget/set',
  'budget/reached',
  'work/reported',
] as const;

/**
 * PostgreSQL only: a statement that inserts any of the control types also notifies
 * `dagent_control`, named as on `dagent_events` (`r-1a2b run/cancel-requested`) with those types
 * only. A worker listens there and not to `dagent_events`: a run's every append woke every worker
 * of the fleet, to be parsed and dropped (each message of each node, times the fleet's size).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  const controlTypes = sql.join(CONTROL_TYPES_0013.map((type) => sql.lit(type)));
  await sql`
    create or replace function dagent_events_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dagent_events', inserted.run_id || ' ' || inserted.types)
      from (select run_id, string_agg(distinct type, ',') as types from new_events group by run_id) as inserted;
      perform pg_notify('dagent_control', controlled.run_id || ' ' || controlled.types)
      from (select run_id, string_agg(distinct type, ',') as types from new_events where type in (${controlTypes}) group by run_id) as controlled;
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`
    create or replace function dagent_events_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dagent_events', inserted.run_id || ' ' || inserted.types)
      from (select run_id, string_agg(distinct type, ',') as types from new_events group by run_id) as inserted;
      return null;
    end $$`.execute(db);
}
