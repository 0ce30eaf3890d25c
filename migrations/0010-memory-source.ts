import type { Kysely } from 'kysely';

/**
 * Where a memory came from, as JSON: `{ kind, runId?, nodeId?, compactionId? }` (`kind` is `cli`,
 * `remember` or `compaction`). Memories stored before this column existed have none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('memories').addColumn('source', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('memories').dropColumn('source').execute();
}
