import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect-of.js';

/**
 * Keyword search over long-term memories. SQLite: an FTS5 index (`memories_fts`, external
 * content over `memories`, Porter-stemmed) kept in step by triggers. PostgreSQL needs nothing:
 * memory search there uses the portable LIKE-based scoring. A SQLite built without FTS5 gets no
 * index either, and search falls back the same way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  try {
    await sql
      .raw(`CREATE VIRTUAL TABLE memories_fts USING fts5(content, keywords, content='memories', content_rowid='id', tokenize='porter unicode61')`)
      .execute(db);
  } catch {
    return;
  }
  const statements = [
    `CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
       INSERT INTO memories_fts(rowid, content, keywords) VALUES (new.id, new.content, new.keywords);
     END`,
    `CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
       INSERT INTO memories_fts(memories_fts, rowid, content, keywords) VALUES ('delete', old.id, old.content, old.keywords);
     END`,
    `CREATE TRIGGER memories_fts_update AFTER UPDATE ON memories BEGIN
       INSERT INTO memories_fts(memories_fts, rowid, content, keywords) VALUES ('delete', old.id, old.content, old.keywords);
       INSERT INTO memories_fts(rowid, content, keywords) VALUES (new.id, new.content, new.keywords);
     END`,
    `INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  for (const trigger of ['memories_fts_insert', 'memories_fts_delete', 'memories_fts_update']) await sql.raw(`DROP TRIGGER IF EXISTS ${trigger}`).execute(db);
  await sql.raw('DROP TABLE IF EXISTS memories_fts').execute(db);
}
