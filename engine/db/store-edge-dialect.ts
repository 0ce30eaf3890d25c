import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import type { SecretRedactor } from '../secret-redactor.js';
import { isWholeBase64 } from '../secret-scan.js';
import { waitOutLocks, type BusyBackoff, type BusyNotice } from './busy-backoff.js';
import { createRedactionMemo } from './redaction-memo.js';
import { recordWrittenParameters } from './written-parameters.js';

export interface StoreEdge {
  readonly redactor: SecretRedactor;
  readonly backoff: BusyBackoff;
  readonly onBusy?: (notice: BusyNotice) => void;
  /** SQLite: transactions take the write lock when they begin (`BEGIN IMMEDIATE`). */
  readonly beginImmediate?: boolean;
}

/**
 * `dialect` with the store's edge around every statement, whichever code path runs it:
 *
 * - Every value written is passed through the redactor first: the string parameters of every
 *   statement that is not a plain SELECT — INSERT, UPDATE, and PostgreSQL's single-statement
 *   appends, which begin with WITH (the session log, the `nodes` projection, file snapshots,
 *   memories). Binary snapshot content is stored as base64 text; a parameter that is entirely
 *   base64 is decoded, redacted and encoded again, so a key inside a binary file is caught too.
 *   Reads are left alone.
 * - A lock held by another program past the busy timeout is waited out with backoff (the event
 *   loop keeps running; `onBusy` tells the user once the wait is long) instead of failing the run.
 *   The busy timeout itself is short: better-sqlite3 waits it out synchronously, so the waiting
 *   is done here, between attempts, where timers, the dashboard and cancellation keep running.
 * - On SQLite a transaction takes the write lock when it begins (`BEGIN IMMEDIATE`, retried like
 *   any statement). A transaction that read first and wrote later would otherwise fail with
 *   SQLITE_BUSY_SNAPSHOT when another process wrote in between, and no retry of the write alone
 *   can succeed; with the lock taken up front, the whole transaction waits its turn instead.
 * - A rollback of a transaction SQLite already rolled back itself (it does on a full disk or an
 *   I/O error) is not an error: the original failure, e.g. "the disk is full", is what surfaces.
 */
export function storeEdgeDialect(dialect: Dialect, edge: StoreEdge): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new StoreEdgeDriver(dialect.createDriver(), edge, createRedactionMemo((value) => redactString(edge.redactor, value))),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

/** Statements whose parameters only select: everything else may write them (a `WITH … INSERT` as much as an `INSERT`). */
const READ_STATEMENT = /^\s*select\b/i;
/** Shorter base64-looking parameters (ids, hashes) cannot hold a key worth decoding for. */
const MIN_BASE64_CHARS = 24;

class StoreEdgeConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    readonly edge: StoreEdge,
    readonly redactString: (value: string) => string,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const redacted = this.#redacted(query);
    return waitOutLocks(() => this.inner.executeQuery<R>(redacted), this.edge.backoff, this.edge.onBusy);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(this.#redacted(query), chunkSize);
  }

  #redacted(query: CompiledQuery): CompiledQuery {
    if (READ_STATEMENT.test(query.sql)) return query;
    let changed = false;
    const parameters = query.parameters.map((parameter) => {
      const redacted = this.#redactValue(parameter);
      if (redacted !== parameter) changed = true;
      return redacted;
    });
    if (!changed) return query;
    recordWrittenParameters(query.parameters, parameters);
    return { ...query, parameters };
  }

  #redactValue(value: unknown): unknown {
    if (Buffer.isBuffer(value)) return this.edge.redactor.redactBytes(value);
    if (typeof value !== 'string') return value;
    return this.redactString(value);
  }
}

/** A string written to the store with its secrets removed; base64 is looked into (see `storeEdgeDialect`). */
function redactString(redactor: SecretRedactor, value: string): string {
  if (value.length >= MIN_BASE64_CHARS && isWholeBase64(value)) {
    const bytes = Buffer.from(value, 'base64');
    const redacted = redactor.redactBytes(bytes);
    return redacted === bytes ? value : redacted.toString('base64');
  }
  return redactor.redactText(value);
}

class StoreEdgeDriver implements Driver {
  readonly #inner: Driver;
  readonly #edge: StoreEdge;
  readonly #redactString: (value: string) => string;

  constructor(inner: Driver, edge: StoreEdge, redactString: (value: string) => string) {
    this.#inner = inner;
    this.#edge = edge;
    this.#redactString = redactString;
    // Savepoints are optional in a driver; offer them only when the wrapped one does.
    if (inner.savepoint !== undefined) this.savepoint = (connection, name, compile) => inner.savepoint!(unwrap(connection), name, compile);
    if (inner.rollbackToSavepoint !== undefined) this.rollbackToSavepoint = (connection, name, compile) => inner.rollbackToSavepoint!(unwrap(connection), name, compile);
    if (inner.releaseSavepoint !== undefined) this.releaseSavepoint = (connection, name, compile) => inner.releaseSavepoint!(unwrap(connection), name, compile);
  }

  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new StoreEdgeConnection(await this.#inner.acquireConnection(), this.#edge, this.#redactString);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // Through the edge connection: a lock held elsewhere is waited out with backoff.
    if (this.#edge.beginImmediate === true) await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    else await this.#inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(unwrap(connection));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.#inner.rollbackTransaction(unwrap(connection));
    } catch (error) {
      // SQLite rolls a transaction back itself on SQLITE_FULL and some I/O errors; then there is
      // nothing left to roll back, and the error worth reporting is the one that caused it.
      if (/no transaction is active/.test(error instanceof Error ? error.message : String(error))) return;
      throw error;
    }
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof StoreEdgeConnection ? connection.inner : connection;
}
