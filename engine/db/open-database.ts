import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Dialect } from 'kysely';
import { MIGRATIONS, type SqlDialectName } from '../../migrations/index.js';
import { DatabaseError, SchemaTooNewError, errorMessage } from '../errors.js';
import type { Database } from './database.js';
import { createStatementCache } from './statement-cache.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { createSecretRedactor } from '../secret-redactor.js';
import { describePostgresError } from './postgres-error.js';
import { busyBackoff, isBusyError, waitOutLocks, type BusyBackoff, type BusyNotice } from './busy-backoff.js';
import { storeEdgeDialect } from './store-edge-dialect.js';
import { underSchemaChangeLock } from './schema-change-lock.js';

/**
 * `synchronous` for SQLite. NORMAL in WAL mode survives a killed process (kill -9) with nothing
 * lost; only a power cut can drop the last few commits. FULL adds an fsync per commit; see the
 * README for the measured cost.
 */
export type SqliteSynchronous = 'NORMAL' | 'FULL';

export interface OpenDatabaseOptions {
  readonly synchronous?: SqliteSynchronous;
  /**
   * Milliseconds one statement waits for a lock inside better-sqlite3 (synchronously, blocking the
   * event loop) before the store's edge takes over and waits with async backoff.
   */
  readonly busyTimeoutMs?: number;
  /**
   * Values that must never reach the store (the configured provider keys, tokens from the
   * environment): every value written is redacted of them, and of the common key shapes.
   */
  readonly secrets?: readonly string[];
  /** How a lock held by another program past `busyTimeoutMs` is waited out (default `busyBackoff()`). */
  readonly busyBackoff?: Partial<BusyBackoff>;
  /** Told when dagent starts waiting for such a lock, and when it got through. */
  readonly onBusy?: (notice: BusyNotice) => void;
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: SqlDialectName;
  readonly url: string;
  /** A SQLite file's background checkpointer (see `WalCheckpointer`); absent for PostgreSQL and `:memory:`. */
  readonly checkpointer?: WalCheckpointer;
  /**
   * PostgreSQL: opens this many connections now and keeps them open while idle (a worker: a wide
   * stage's claims find them ready instead of opening them in the burst), each having looked at the
   * tables a run works in once. Nothing on SQLite.
   */
  keepConnections(count: number): Promise<void>;
  /**
   * PostgreSQL: the backend process ids of this store's open connections, as a notification names
   * its sender: a follower tells this process's own inserts from other processes' by them.
   */
  readonly ownBackends?: ReadonlySet<number>;
  close(): Promise<void>;
}

/**
 * How long one SQLite statement waits for a lock inside better-sqlite3. That wait blocks the
 * event loop, so it is short; a longer lock is waited out with async backoff at the store's edge.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 100;
/** The background checkpointer runs in its own thread: it may wait longer for a lock. */
const CHECKPOINT_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the store at `url`: a SQLite file path (or `sqlite:PATH`, or `:memory:`), or a
 * `postgres://` URL. Runs pending migrations. Fails with one clear `DatabaseError` when the
 * file is not a database, is locked, or was written by a newer schema.
 */
export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<Store> {
  const isPostgres = /^postgres(ql)?:\/\//.test(url);
  const dialect: SqlDialectName = isPostgres ? 'postgres' : 'sqlite';
  const backoff = busyBackoff(options.busyBackoff);
  const opened = isPostgres ? await postgresDialect(url) : { ...(await sqliteDialectBesideOthers(url, options, backoff)), keepConnections: async () => 0, ownBackends: undefined };
  const { checkpointer, keepConnections, ownBackends } = opened;
  const edge = {
    redactor: createSecretRedactor(options.secrets),
    backoff,
    ...(options.onBusy === undefined ? {} : { onBusy: options.onBusy }),
    beginImmediate: !isPostgres,
  };
  const db = new Kysely<Database>({ dialect: storeEdgeDialect(opened.dialect, edge) });
  const close = async (): Promise<void> => {
    await checkpointer?.close();
    await db.destroy();
  };
  try {
    // On PostgreSQL the migrator's look at the schema must not meet another process's migration
    // of graphile-worker's (see schema-change-lock.ts); SQLite has no such processes to meet.
    await (isPostgres ? underSchemaChangeLock(url, () => migrate(db, url)) : migrateBesideOthers(db, url));
  } catch (error) {
    await close().catch(() => undefined);
    throw isPostgres ? describePostgresError(error, url) : error;
  }
  const keepPrimed = async (count: number): Promise<void> => {
    const kept = await keepConnections(count);
    // Each at once, so each on a connection of its own (the kept ones are idle now).
    // A look that fails only leaves that connection to load them when a node needs them.
    await Promise.all(Array.from({ length: kept }, () => primeConnection(db).catch(() => undefined)));
  };
  return { db, dialect, url, ...(checkpointer === undefined ? {} : { checkpointer }), ...(ownBackends === undefined ? {} : { ownBackends }), keepConnections: keepPrimed, close };
}

/**
 * A PostgreSQL server process loads what it knows of a table (columns, indexes) the first time a
 * statement of its connection uses it: a stage's first nodes each paid that for every table they
 * touch, on fresh connections, in the middle of the stage. One read of each while the run sets up.
 */
async function primeConnection(db: Kysely<Database>): Promise<void> {
  const tables = ['events', 'nodes', 'runs', 'plans', 'node_claims', 'file_snapshots', 'memories'] as const;
  const looks = tables.map((table) => sql`(select count(*) from (select 1 from ${sql.table(table)} limit 1) as ${sql.id(table)})`);
  await sql`select ${sql.join(looks)}`.execute(db);
}

/**
 * `sqliteDialect`, waiting out a lock another process holds while it sets the file up (a new
 * store's switch to WAL, say: a `status` run beside a `plan` that is creating the store) with the
 * store's async backoff, as every statement's lock is; the user is told once the wait is long.
 */
function sqliteDialectBesideOthers(url: string, options: OpenDatabaseOptions, backoff: BusyBackoff): Promise<{ dialect: Dialect; checkpointer: WalCheckpointer | undefined }> {
  return waitOutLocks(() => sqliteDialect(url, options), backoff, options.onBusy, (error) => isBusyError((error as { cause?: unknown }).cause));
}

function sqliteDialect(url: string, options: OpenDatabaseOptions): { dialect: Dialect; checkpointer: WalCheckpointer | undefined } {
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  const synchronous = options.synchronous ?? 'NORMAL';
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const inMemory = path === ':memory:' || path === '';
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
    sqlite = new BetterSqlite3(path);
    sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma(`synchronous = ${synchronous}`);
    sqlite.pragma('foreign_keys = ON');
    // Reads come from the memory-mapped file instead of a copy per page read: reading a long run
    // back (status, log, show, resume) costs about a quarter less CPU.
    if (!inMemory) sqlite.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
    // Checkpoints happen in a worker thread (WalCheckpointer), never inside one of our commits.
    if (!inMemory) sqlite.pragma('wal_autocheckpoint = 0');
  } catch (error) {
    // Closed: a caller that waits out a lock opens the file again.
    if (sqlite?.open === true) sqlite.close();
    throw describeSqliteError(error, url);
  }
  const opened = sqlite;
  const checkpointer = inMemory
    ? undefined
    : new WalCheckpointer(resolve(path), {
        synchronous,
        busyTimeoutMs: Math.max(busyTimeoutMs, CHECKPOINT_BUSY_TIMEOUT_MS),
        onUnavailable: () => {
          if (opened.open) opened.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
        },
      });
  return { dialect: new SqliteDialect({ database: createStatementCache(opened) }), checkpointer };
}

const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/** How much of the database file SQLite maps into memory for reads (address space, not memory used). */
const SQLITE_MMAP_BYTES = 256 * 1024 * 1024;

async function postgresDialect(url: string): Promise<{ dialect: Dialect; checkpointer: undefined; keepConnections: (count: number) => Promise<number>; ownBackends: ReadonlySet<number> }> {
  const pg = await import('pg');
  const pool = new pg.default.Pool({ connectionString: url, max: POSTGRES_POOL_SIZE });
  const ownBackends = new Set<number>();
  // pg's client learns its backend's process id while it connects; a closed connection's id may later be another process's.
  const backendOf = (client: unknown): number | undefined => (client as { processID?: number | null }).processID ?? undefined;
  pool.on('connect', (client) => {
    const id = backendOf(client);
    if (id !== undefined) ownBackends.add(id);
  });
  pool.on('remove', (client) => {
    const id = backendOf(client);
    if (id !== undefined) ownBackends.delete(id);
  });
  // An idle connection that the server drops (a restart, a terminated backend) is an event on
  // the pool, not a failure of any query: the next query opens a new connection. Unheard, it
  // would crash the process.
  pool.on('error', () => undefined);
  const keepConnections = async (count: number): Promise<number> => {
    // pg's pool closes idle connections above `min` (read when a connection goes idle).
    pool.options.min = Math.min(count, POSTGRES_POOL_SIZE);
    const opened = await Promise.all(Array.from({ length: pool.options.min }, () => pool.connect()));
    for (const client of opened) client.release();
    return opened.length;
  };
  return { dialect: new PostgresDialect({ pool }), checkpointer: undefined, keepConnections, ownBackends };
}

/** Connections of one process's PostgreSQL pool: more made a wide stage on one worker slower (docs/benchmarks.md#workers). */
const POSTGRES_POOL_SIZE = 10;

/** How often, and how long apart, a SQLite migration that met another process's is tried again. */
const MIGRATION_RACE_RETRIES = 20;
const MIGRATION_RACE_DELAY_MS = 100;
/** What the second of two processes migrating a new SQLite database at once meets (see `migrateBesideOthers`). */
const MIGRATION_RACE = /already exists|duplicate column name|UNIQUE constraint failed: kysely_migration\.name/;

/**
 * SQLite has no lock for kysely's migrator to take: two processes that open a new database at
 * once (\`dagent plan\` creating it, \`dagent status\` looking) both see no tables, and the second
 * to create a table or add a column fails ("already exists", "duplicate column name"), or, when
 * its migrations' statements went through, to record a migration the first recorded ("UNIQUE
 * constraint failed: kysely_migration.name"). That one's transaction is rolled back; it waits and
 * looks again: by then the first has committed its migration, and there is nothing left to do.
 */
async function migrateBesideOthers(db: Kysely<Database>, url: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await migrate(db, url);
      return;
    } catch (error) {
      if (attempt >= MIGRATION_RACE_RETRIES || !MIGRATION_RACE.test(errorMessage(error))) throw error;
      await new Promise((resolveLater) => setTimeout(resolveLater, MIGRATION_RACE_DELAY_MS));
    }
  }
}

async function migrate(db: Kysely<Database>, url: string): Promise<void> {
  const known = new Set(Object.keys(MIGRATIONS));
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  let applied: string[];
  try {
    applied = (await migrator.getMigrations()).filter((m) => m.executedAt !== undefined).map((m) => m.name);
  } catch (error) {
    throw describeSqliteError(error, url);
  }
  const executed = await executedMigrationNames(db);
  const unknown = executed.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new SchemaTooNewError(url, unknown);
  if (applied.length === known.size) return;
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw describeSqliteError(error, url);
}

async function executedMigrationNames(db: Kysely<Database>): Promise<string[]> {
  try {
    const rows = await (db as unknown as Kysely<{ kysely_migration: { name: string } }>)
      .selectFrom('kysely_migration')
      .select('name')
      .execute();
    return rows.map((row) => row.name);
  } catch {
    return [];
  }
}

/** One line a user can act on, for the ways a SQLite file fails to open. */
export function describeSqliteError(error: unknown, url: string): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const code = (error as { code?: string }).code ?? '';
  const message = errorMessage(error);
  if (code === 'SQLITE_NOTADB' || /not a database/.test(message)) {
    return new DatabaseError(`database ${url} is not a SQLite database or is corrupt (${message})`, url, error);
  }
  if (code.startsWith('SQLITE_CORRUPT') || /malformed/.test(message)) {
    return new DatabaseError(`database ${url} is corrupt (${message}); restore it from a backup or use another --db`, url, error);
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || /database is locked/.test(message)) {
    return new DatabaseError(`database ${url} is locked by another process; try again when it finishes`, url, error);
  }
  if (code === 'SQLITE_CANTOPEN' || /unable to open/.test(message)) {
    return new DatabaseError(`cannot open database ${url} (${message})`, url, error);
  }
  if (code === 'SQLITE_READONLY') {
    return new DatabaseError(`database ${url} is read-only (${message})`, url, error);
  }
  if (code === 'SQLITE_FULL' || /disk is full|ENOSPC/.test(message)) {
    return new DatabaseError(`database ${url}: the disk is full; nothing was written`, url, error);
  }
  return new DatabaseError(`database ${url}: ${message}`, url, error);
}
