/**
 * The PostgreSQL advisory lock ("dagent-q" in ASCII) under which a dagent process changes or reads
 * the schema of a database: the store's migrations and graphile-worker's. Reading must be under it
 * too: kysely's migrator finds its tables through an introspection of every table in the database
 * whose `pg_get_serial_sequence(name, column)` looks each name up in the newest catalog, not in the
 * statement's snapshot. A table renamed or dropped meanwhile by another process (graphile-worker's
 * migration 000011 renames `job_queues`, 000016 renames `known_crontabs`) fails that statement:
 * `column "job_count" of relation "job_queues" does not exist`. The lock is a session lock on a
 * connection of its own, so the work may use any other connection.
 */
const SCHEMA_CHANGE_LOCK = 0x646167656e742d71n.toString();

/** Runs `work` while no other dagent process changes or reads the schema of the database at `connectionString`. */
export async function underSchemaChangeLock<T>(connectionString: string, work: () => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [SCHEMA_CHANGE_LOCK]);
    return await work();
  } finally {
    // Ending the session releases its advisory lock, whether or not the unlock was reached.
    await client.end();
  }
}
