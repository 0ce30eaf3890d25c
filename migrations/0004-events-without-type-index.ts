import type { Kysely } from 'kysely';

/**
 * The log is written far more often than it is filtered by type: every event paid for a third
 * B-tree, and the scheduler's durable path ran about a quarter slower for it. Queries by type
 * (status, resume, request reconstruction) scan a run's events through the primary key or the
 * node index instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_type_idx').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_type_idx').on('events').columns(['run_id', 'type', 'seq']).execute();
}
