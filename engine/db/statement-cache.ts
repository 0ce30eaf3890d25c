import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const MAX_CACHED_STATEMENTS = 256;

/**
 * The subset of better-sqlite3 that Kysely's SqliteDialect uses, with prepared statements
 * cached by SQL text: Kysely prepares on every query, and preparing costs as much as running
 * a small insert. Evicts the oldest statement past `MAX_CACHED_STATEMENTS`.
 */
export function createStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached !== undefined) return cached;
      const statement = sqlite.prepare(sql) as unknown as SqliteStatement;
      if (statements.size >= MAX_CACHED_STATEMENTS) {
        const oldest = statements.keys().next().value;
        if (oldest !== undefined) statements.delete(oldest);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}
