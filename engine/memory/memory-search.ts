import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, MemoriesTable } from '../db/index.js';
import type { MemoryKind, MemoryScope, RecalledMemory } from './memory.js';
import { memoryFromRow } from './memory-row.js';
import { dialectOf } from '../../migrations/index.js';

export interface MemorySearchOptions {
  readonly limit: number;
  readonly scope?: MemoryScope;
  readonly kind?: MemoryKind;
}

/** Weight of a match in a memory's keywords against one in its text (FTS5 bm25 column weights). */
const KEYWORD_COLUMN_WEIGHT = 2;

/**
 * Full-text search through the SQLite FTS5 index of migration 0002: any keyword matches
 * (Porter-stemmed), ranked by bm25 with keyword-column hits weighted up. SQLite only; throws
 * when the index does not exist.
 */
export async function ftsSearch(db: Kysely<Database>, keywords: readonly string[], options: MemorySearchOptions): Promise<RecalledMemory[]> {
  if (keywords.length === 0) return [];
  const match = keywords.map((keyword) => `"${keyword.replace(/"/g, '""')}"`).join(' OR ');
  const scope = options.scope === undefined ? sql`` : sql`AND m.scope = ${options.scope}`;
  const kind = options.kind === undefined ? sql`` : sql`AND m.kind = ${options.kind}`;
  const { rows } = await sql<Selectable<MemoriesTable> & { rank: number }>`
    SELECT m.*, bm25(memories_fts, 1.0, ${KEYWORD_COLUMN_WEIGHT}) AS rank
    FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
    WHERE memories_fts MATCH ${match} ${scope} ${kind}
    ORDER BY rank, m.id DESC
    LIMIT ${options.limit}`.execute(db);
  return rows.map((row) => ({ memory: memoryFromRow(row), score: -Number(row.rank) }));
}

/**
 * The portable search (PostgreSQL, or SQLite without FTS5): each keyword scores 1 when the text
 * contains it and 1 more when it is one of the memory's keywords; ranked by score, newest first
 * among equals. Plain `lower`, `LIKE … ESCAPE` and `||`, so it runs on both dialects.
 */
export async function keywordSearch(db: Kysely<Database>, keywords: readonly string[], options: MemorySearchOptions): Promise<RecalledMemory[]> {
  if (keywords.length === 0) return [];
  if (dialectOf(db as Kysely<unknown>) === 'postgres') return keywordSearchPostgres(db, keywords, options);
  const terms = keywords.map((keyword) => {
    const escaped = escapeLike(keyword.toLowerCase());
    return sql<number>`(case when lower(content) like ${`%${escaped}%`} escape '!' then 1 else 0 end + case when (' ' || lower(keywords) || ' ') like ${`% ${escaped} %`} escape '!' then 1 else 0 end)`;
  });
  const score = sql<number>`${sql.join(terms, sql` + `)}`;
  let scored = db.selectFrom('memories').selectAll().select(score.as('score'));
  if (options.scope !== undefined) scored = scored.where('scope', '=', options.scope);
  if (options.kind !== undefined) scored = scored.where('kind', '=', options.kind);
  const rows = await db
    .selectFrom(scored.as('scored'))
    .selectAll()
    .where('score', '>', 0)
    .orderBy('score', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .execute();
  return rows.map((row) => ({ memory: memoryFromRow(row), score: Number(row.score) }));
}

/**
 * The same scoring on PostgreSQL, the keywords as one array parameter: one statement text
 * whatever the keywords (every step of every node searches; the portable form built and sent
 * two clauses of SQL per keyword, 48 for a long instruction).
 */
async function keywordSearchPostgres(db: Kysely<Database>, keywords: readonly string[], options: MemorySearchOptions): Promise<RecalledMemory[]> {
  const words = keywords.map((keyword) => escapeLike(keyword.toLowerCase()));
  const scope = options.scope === undefined ? sql`` : sql`and m.scope = ${options.scope}`;
  const kind = options.kind === undefined ? sql`` : sql`and m.kind = ${options.kind}`;
  const { rows } = await sql<Selectable<MemoriesTable> & { score: number }>`
    select m.*, s.score from memories m
    cross join lateral (
      select sum((case when lower(m.content) like '%' || k.word || '%' escape '!' then 1 else 0 end) + (case when (' ' || lower(m.keywords) || ' ') like '% ' || k.word || ' %' escape '!' then 1 else 0 end))::integer as score
      from unnest(${words}::text[]) as k(word)
    ) s
    where s.score > 0 ${scope} ${kind}
    order by s.score desc, m.id desc
    limit ${options.limit}`.execute(db);
  return rows.map(({ score, ...row }) => ({ memory: memoryFromRow(row), score: Number(score) }));
}

function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (character) => `!${character}`);
}
