import type { Kysely } from 'kysely';

/**
 * The scan a node attempt's first command took in a workspace without git (a react run's
 * deferred scan): the hashes of the files its write set covered then, kept until the node's end is
 * recorded. A process killed mid-command leaves its row, from which a later command finds and
 * records what that command changed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('node_scans')
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('writes', 'text', (c) => c.notNull())
    .addColumn('files', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('node_scans_pk', ['run_id', 'node_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('node_scans').execute();
}
