import type { Kysely } from 'kysely';

/**
 * One row per run that a process has ever claimed: who holds it (an owner id, its pid and host),
 * until when, and a fencing token that grows with every claim. The row outlives its holder (a
 * release only marks it), so the token never goes back when the run is claimed again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('run_leases')
    .addColumn('run_id', 'text', (c) => c.primaryKey().references('runs.id').onDelete('cascade'))
    .addColumn('token', 'integer', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('released_at', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('run_leases').execute();
}
