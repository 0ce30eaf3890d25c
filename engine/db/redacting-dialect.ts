import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import type { SecretRedactor } from '../secret-redactor.js';

/**
 * `dialect` with every value written to the store passed through `redactor` first: the string
 * parameters of each INSERT and UPDATE, whichever table and whichever code path wrote them (the
 * session log, the `nodes` projection, file snapshots, memories). Binary snapshot content is
 * stored as base64 text; a parameter that is entirely base64 is decoded, redacted and encoded
 * again, so a key inside a binary file is caught too. Reads are left alone.
 */
export function redactingDialect(dialect: Dialect, redactor: SecretRedactor): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new RedactingDriver(dialect.createDriver(), redactor),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

const WRITE_STATEMENT = /^\s*(?:insert|update|replace)\b/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Shorter base64-looking parameters (ids, hashes) cannot hold a key worth decoding for. */
const MIN_BASE64_CHARS = 24;

class RedactingConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    readonly redactor: SecretRedactor,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(this.#redacted(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(this.#redacted(query), chunkSize);
  }

  #redacted(query: CompiledQuery): CompiledQuery {
    if (!WRITE_STATEMENT.test(query.sql)) return query;
    let changed = false;
    const parameters = query.parameters.map((parameter) => {
      const redacted = this.#redactValue(parameter);
      if (redacted !== parameter) changed = true;
      return redacted;
    });
    return changed ? { ...query, parameters } : query;
  }

  #redactValue(value: unknown): unknown {
    if (Buffer.isBuffer(value)) return this.redactor.redactBytes(value);
    if (typeof value !== 'string') return value;
    if (value.length >= MIN_BASE64_CHARS && BASE64.test(value)) {
      const bytes = Buffer.from(value, 'base64');
      const redacted = this.redactor.redactBytes(bytes);
      return redacted === bytes ? value : redacted.toString('base64');
    }
    return this.redactor.redactText(value);
  }
}

class RedactingDriver implements Driver {
  readonly #inner: Driver;
  readonly #redactor: SecretRedactor;

  constructor(inner: Driver, redactor: SecretRedactor) {
    this.#inner = inner;
    this.#redactor = redactor;
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
    return new RedactingConnection(await this.#inner.acquireConnection(), this.#redactor);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(unwrap(connection));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof RedactingConnection ? connection.inner : connection;
}
