import type { Kysely } from 'kysely';

/**
 * Which worker runs a node attempt dispatched through the job queue, until when, and a fencing
 * token that grows with every claim of the node: a worker commits its outcome only while its
 * token is the row's. The row outlives its claims, so the token never goes back.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('node_claims')
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('token', 'integer', (c) => c.notNull())
    .addColumn('worker', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('released_at', 'text')
    .addPrimaryKeyConstraint('node_claims_pk', ['run_id', 'node_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('node_claims').execute();
}
