import { sql, type Kysely } from 'kysely';
import { memoryChangeMark, noteMemoryChange, type Database } from '../db/index.js';
import { ConfigError, errorMessage } from '../errors.js';
import { memoryContentHash, normalizeMemoryContent } from './content-hash.js';
import { extractKeywords, MAX_KEYWORDS } from './keywords.js';
import { MAX_MEMORY_CHARS, type Memory, type MemoryKind, type MemorySource, type MemoryScope, type RecalledMemory } from './memory.js';
import { memoryFromRow } from './memory-row.js';
import { ftsSearch, keywordSearch, type MemorySearchOptions } from './memory-search.js';

/** How many memories a search returns unless told otherwise. */
export const DEFAULT_RECALL_LIMIT = 5;

export interface AddMemoryInput {
  readonly content: string;
  /** `fact` when omitted. */
  readonly kind?: MemoryKind;
  /** `project` when omitted. */
  readonly scope?: MemoryScope;
  /** Where it came from; kept with a new memory (an equal one already stored keeps its own). */
  readonly source?: MemorySource;
  /** Extra keywords; the content's own are always taken. */
  readonly keywords?: readonly string[];
}

export interface AddMemoryResult {
  readonly memory: Memory;
  /** False when an equal memory (same text up to case and whitespace) already existed: that one is returned. */
  readonly created: boolean;
}

export interface ListMemoriesOptions {
  readonly scope?: MemoryScope;
  readonly kind?: MemoryKind;
  readonly limit?: number;
}

export interface SearchMemoriesOptions {
  readonly limit?: number;
  readonly scope?: MemoryScope;
  readonly kind?: MemoryKind;
}

/** The store the memories live in: its database and dialect (an opened `Store` fits). */
export interface MemoryDatabase {
  readonly db: Kysely<Database>;
  readonly dialect: 'sqlite' | 'postgres';
}

export class InvalidMemoryError extends ConfigError {}

/**
 * Long-term memories in the `memories` table: deduplicated on insert by a hash of the
 * normalized text, searched by keyword — through the FTS5 index on SQLite, by the portable
 * LIKE scoring on PostgreSQL (and on a SQLite without FTS5).
 */
export class MemoryStore {
  readonly #db: Kysely<Database>;
  readonly #now: () => Date;
  #fts: boolean;

  constructor(database: MemoryDatabase, options: { now?: () => Date } = {}) {
    this.#db = database.db;
    this.#now = options.now ?? (() => new Date());
    this.#fts = database.dialect === 'sqlite';
  }

  /** Whether searches go through the SQLite FTS5 index. */
  get usesFullTextIndex(): boolean {
    return this.#fts;
  }

  /** Stores a memory, or returns the equal one already stored. */
  async add(input: AddMemoryInput, signal?: AbortSignal): Promise<AddMemoryResult> {
    signal?.throwIfAborted();
    const content = normalizeMemoryContent(input.content);
    if (content === '') throw new InvalidMemoryError('a memory needs some text');
    if (content.length > MAX_MEMORY_CHARS) throw new InvalidMemoryError(`a memory is at most ${MAX_MEMORY_CHARS} characters; this one has ${content.length}`);
    const contentHash = memoryContentHash(content);
    const keywords = [...new Set([...extractKeywords(content), ...(input.keywords ?? []).flatMap((keyword) => extractKeywords(keyword))])].slice(0, MAX_KEYWORDS * 2);
    // An equal memory is found first: an insert turned away by the unique hash would still take
    // a number from the table's sequence, and the next memory's id would skip one.
    const existing = await this.#db.selectFrom('memories').selectAll().where('content_hash', '=', contentHash).executeTakeFirst();
    if (existing !== undefined) return { memory: memoryFromRow(existing), created: false };
    const now = this.#now().toISOString();
    const inserted = await this.#db
      .insertInto('memories')
      .values({ scope: input.scope ?? 'project', kind: input.kind ?? 'fact', content, keywords: keywords.join(' '), content_hash: contentHash, created_at: now, updated_at: now, ...(input.source === undefined ? {} : { source: JSON.stringify(input.source) }) })
      .onConflict((conflict) => conflict.column('content_hash').doNothing())
      .returning('id')
      .executeTakeFirst();
    knownEmpty.delete(this.#db);
    noteMemoryChange(this.#db);
    const row = await this.#db.selectFrom('memories').selectAll().where('content_hash', '=', contentHash).executeTakeFirstOrThrow();
    return { memory: memoryFromRow(row), created: inserted !== undefined };
  }

  async get(id: number, signal?: AbortSignal): Promise<Memory | undefined> {
    signal?.throwIfAborted();
    const row = await this.#db.selectFrom('memories').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : memoryFromRow(row);
  }

  /** Memories, oldest first. */
  async list(options: ListMemoriesOptions = {}, signal?: AbortSignal): Promise<Memory[]> {
    signal?.throwIfAborted();
    let select = this.#db.selectFrom('memories').selectAll().orderBy('id');
    if (options.scope !== undefined) select = select.where('scope', '=', options.scope);
    if (options.kind !== undefined) select = select.where('kind', '=', options.kind);
    if (options.limit !== undefined) select = select.limit(options.limit);
    return (await select.execute()).map(memoryFromRow);
  }

  /** Deletes a memory; false when there was none with that id. */
  async remove(id: number, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    const result = await this.#db.deleteFrom('memories').where('id', '=', id).executeTakeFirst();
    knownEmpty.delete(this.#db);
    noteMemoryChange(this.#db);
    return result.numDeletedRows > 0n;
  }

  /** The memories that best match the keywords of `query`, best first; none for a query of only stop words. */
  async search(query: string, options: SearchMemoriesOptions = {}, signal?: AbortSignal): Promise<RecalledMemory[]> {
    signal?.throwIfAborted();
    // An empty store answers before the query is read for keywords (every step of every node searches).
    if (await (this.#fts ? this.#isEmpty() : this.#isEmptyAsHeard())) return [];
    const keywords = extractKeywords(query);
    const searchOptions: MemorySearchOptions = { ...options, limit: options.limit ?? DEFAULT_RECALL_LIMIT };
    if (keywords.length === 0) return [];
    if (this.#fts) {
      try {
        return await ftsSearch(this.#db, keywords, searchOptions);
      } catch (error) {
        if (!/no such (table|module)|fts5/i.test(errorMessage(error))) throw error;
        this.#fts = false;
      }
    }
    return keywordSearch(this.#db, keywords, searchOptions);
  }

  /**
   * SQLite: whether the store holds no memory, asked once until it may have changed — a memory
   * added or removed through this database handle (any `MemoryStore` on it), or anything another
   * connection committed (`PRAGMA data_version`). A run's nodes search at every step; a project
   * with no memories answered each search through the full-text index.
   */
  async #isEmpty(): Promise<boolean> {
    const version = await dataVersion(this.#db);
    if (knownEmpty.get(this.#db) === version) return true;
    const any = await this.#db.selectFrom('memories').select('id').limit(1).executeTakeFirst();
    if (any === undefined) knownEmpty.set(this.#db, version);
    else knownEmpty.delete(this.#db);
    return any === undefined;
  }

  /**
   * PostgreSQL (and a SQLite without FTS5, which is never heard): whether the store holds no
   * memory, asked once while this process hears every change to the store's memories (a follower
   * listens on `dagent_memories`, notified by each statement that changes them) and has heard none
   * since. A store not heard is asked nothing here: its search runs.
   */
  async #isEmptyAsHeard(): Promise<boolean> {
    const mark = memoryChangeMark(this.#db);
    if (mark === undefined) return false;
    // The answer given at this mark, or in flight (a wide stage's nodes search at once). A change
    // heard while it was asked moved the mark: the next search asks again.
    const asked = emptinessAsHeard.get(this.#db);
    if (asked?.mark === mark) return asked.empty;
    const empty = this.#db.selectFrom('memories').select('id').limit(1).executeTakeFirst().then((any) => any === undefined);
    emptinessAsHeard.set(this.#db, { mark, empty });
    empty.catch(() => emptinessAsHeard.get(this.#db)?.empty === empty && emptinessAsHeard.delete(this.#db));
    return empty;
  }
}

/**
 * SQLite's `data_version` on `db`: a wide stage's nodes search at once, and a read in flight is
 * the answer for every search that asks while it is (one statement for the stage, not one each).
 */
function dataVersion(db: Kysely<Database>): Promise<number> {
  let reading = dataVersionReads.get(db);
  if (reading === undefined) {
    reading = sql<{ data_version: number }>`PRAGMA data_version`.execute(db).then(({ rows }) => Number(rows[0]?.data_version));
    dataVersionReads.set(db, reading);
    const done = (): void => void (dataVersionReads.get(db) === reading && dataVersionReads.delete(db));
    reading.then(done, done);
  }
  return reading;
}

const dataVersionReads = new WeakMap<Kysely<Database>, Promise<number>>();

/** Database handles whose memories table was empty, by the `data_version` it was seen empty at. */
const knownEmpty = new WeakMap<Kysely<Database>, number>();
/** PostgreSQL handles' last question whether the memories table is empty, with the memory-change mark it was asked at. */
const emptinessAsHeard = new WeakMap<Kysely<Database>, { readonly mark: number; readonly empty: Promise<boolean> }>();
