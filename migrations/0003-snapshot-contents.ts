import type { Kysely } from 'kysely';

/**
 * File snapshots keep the content after a node too (so one node's change can be diffed and
 * reversed on its own), and say how their contents are stored: `utf8` text, or `base64` for
 * binary content (not valid UTF-8, or containing NUL, which PostgreSQL text cannot hold).
 * One ALTER per column: SQLite adds a single column per statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('file_snapshots').addColumn('content_after', 'text').execute();
  await db.schema
    .alterTable('file_snapshots')
    .addColumn('encoding', 'text', (column) => column.notNull().defaultTo('utf8'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('file_snapshots').dropColumn('encoding').execute();
  await db.schema.alterTable('file_snapshots').dropColumn('content_after').execute();
}
