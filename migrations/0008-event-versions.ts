import type { Kysely } from 'kysely';

/**
 * Each event row records the version of its type's payload schema it was written with, so a row
 * is read back against that version's schema. Rows stored before this column existed have none:
 * they are version 1.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').addColumn('version', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('version').execute();
}
