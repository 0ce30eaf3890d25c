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
  readonly #compiled = new Map<string, { sql: string; names: readonly N[] }>();

  constructor(build: (db: Kysely<Database>, param: Param<N>) => Compilable) {
    this.#build = build;
  }

  async execute<R>(db: Kysely<Database>, values: Readonly<Record<N, unknown>>): Promise<QueryResult<R>> {
    const { sql, names } = this.#compile(db);
    return db.executeQuery<R>(CompiledQuery.raw(sql, names.map((name) => values[name])));
  }

  #compile(db: Kysely<Database>): { sql: string; names: readonly N[] } {
    const dialect = db.getExecutor().adapter.constructor.name;
    let compiled = this.#compiled.get(dialect);
    if (compiled === undefined) {
      const query = this.#build(db, (name) => `${MARKER}${name}`).compile();
      const names = query.parameters.map((parameter) => {
        if (typeof parameter !== 'string' || !parameter.startsWith(MARKER)) throw new Error(`prepared query has a literal parameter: ${String(parameter)}`);
        return parameter.slice(MARKER.length) as N;
      });
      compiled = { sql: query.sql, names };
      this.#compiled.set(dialect, compiled);
    }
    return compiled;
  }
}

const MARKER = '\u0000param:';
