import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { keptByKey } from '../kept-by-key.js';

const MAX_CACHED_STATEMENTS = 256;

/**
 * The subset of better-sqlite3 that Kysely's SqliteDialect uses, with prepared statements
 * cached by SQL text: Kysely prepares on every query, and preparing costs as much as running
 * a small insert. Evicts the oldest statement past `MAX_CACHED_STATEMENTS`.
 */
export function createStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  return {
    close: () => sqlite.close(),
    prepare: keptByKey(MAX_CACHED_STATEMENTS, (sql: string) => sqlite.prepare(sql) as unknown as SqliteStatement),
  };
}
