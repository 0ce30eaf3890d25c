import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { readLeaseHolder } from '../run/ownership/lease-holder.js';

/**
 * Runs dispatched to workers (`dispatch/started` in their log) that are still running but whose
 * scheduler is gone (its lease released without an end, expired, or its pid dead on this host):
 * a worker adopts them and schedules them from their log.
 */
export async function findOrphanedRuns(db: Kysely<Database>, now: Date = new Date()): Promise<string[]> {
  const rows = await db
    .selectFrom('runs')
    .innerJoin('events', 'events.run_id', 'runs.id')
    .select('runs.id')
    .distinct()
    .where('runs.status', '=', 'running')
    .where('events.type', '=', 'dispatch/started')
    .execute();
  const orphaned: string[] = [];
  for (const { id } of rows) {
    const holder = await readLeaseHolder(db, id, now);
    if (holder !== undefined && !holder.alive) orphaned.push(id);
  }
  return orphaned;
}
