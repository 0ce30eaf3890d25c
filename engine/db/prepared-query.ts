import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './database.js';

/** Marks a named parameter while the query is built; replaced by the value on every execution. */
export type Param<N extends string> = (name: N) => string;

/**
 * A query built by Kysely once per dialect and executed many times with new values: building and
 * compiling costs as much as running a small statement, and the hot paths of the engine (the log's
 * appends, the `nodes` projection) run the same statement shapes thousands of times. The builder
 * gets `param(name)` markers instead of values; the compiled parameters must all be markers.
 */
export class PreparedQuery<N extends string> {
  readonly #build: (db: Kysely<Database>, param: Param<N>) => Compilable;
  readonly #compiled = new Map<string, { sql: string; names: readonly N[]; inOrder: boolean }>();

  constructor(build: (db: Kysely<Database>, param: Param<N>) => Compilable) {
    this.#build = build;
  }

  async execute<R>(db: Kysely<Database>, values: Readonly<Record<N, unknown>>): Promise<QueryResult<R>> {
    const { sql, names } = this.#compile(db);
    return db.executeQuery<R>(CompiledQuery.raw(sql, names.map((name) => values[name])));
  }

  /**
   * Runs the query with `parameters` as they are: for queries whose markers are named `0`, `1`,
   * … in the order the compiled SQL uses them (checked when compiled), such as multi-row inserts
   * whose values are laid out row by row. Saves building a keyed object per execution.
   */
  async executeInOrder<R>(db: Kysely<Database>, parameters: unknown[]): Promise<QueryResult<R>> {
    const { sql, names, inOrder } = this.#compile(db);
    if (!inOrder) throw new Error(`prepared query's parameters are not named 0…n in order: ${names.join(', ')}`);
    if (parameters.length !== names.length) throw new Error(`prepared query takes ${names.length} parameters, got ${parameters.length}`);
    return db.executeQuery<R>(CompiledQuery.raw(sql, parameters));
  }

  /** Builds and compiles the query for `db`'s dialect now (time spent waiting anyway), not at its first execution. */
  compileFor(db: Kysely<Database>): void {
    this.#compile(db);
  }

  #compile(db: Kysely<Database>): { sql: string; names: readonly N[]; inOrder: boolean } {
    const dialect = db.getExecutor().adapter.constructor.name;
    let compiled = this.#compiled.get(dialect);
    if (compiled === undefined) {
      const query = this.#build(db, (name) => `${MARKER}${name}`).compile();
      const names = query.parameters.map((parameter) => {
        if (typeof parameter !== 'string' || !parameter.startsWith(MARKER)) throw new Error(`prepared query has a literal parameter: ${String(parameter)}`);
        return parameter.slice(MARKER.length) as N;
      });
      compiled = { sql: query.sql, names, inOrder: names.every((name, index) => name === String(index)) };
      this.#compiled.set(dialect, compiled);
    }
    return compiled;
  }
}

const MARKER = '\u0000param:';
