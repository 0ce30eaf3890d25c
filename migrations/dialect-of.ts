import { PostgresAdapter, type Kysely } from 'kysely';

export type SqlDialectName = 'sqlite' | 'postgres';

/** Which SQL dialect a Kysely instance speaks; migrations branch on it for DDL only. */
export function dialectOf(db: Kysely<unknown>): SqlDialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
