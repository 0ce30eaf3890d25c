import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../../migrations/index.js';
import type { Database } from '../../db/database.js';

/**
 * A transaction that takes the write lock before its first read. On SQLite that is `BEGIN
 * IMMEDIATE`: a second process waits (up to the busy timeout) instead of reading the same state
 * and failing, or worse succeeding, on its later write. On PostgreSQL it is an ordinary
 * transaction; the caller locks the rows it decides on (`SELECT … FOR UPDATE`).
 */
export async function immediateTransaction<T>(db: Kysely<Database>, work: (transaction: Kysely<Database>) => Promise<T>): Promise<T> {
  if (dialectOf(db as Kysely<unknown>) === 'postgres') return db.transaction().execute(work);
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}
