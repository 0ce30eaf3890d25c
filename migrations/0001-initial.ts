import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect-of.js';

/** The tables of docs/design.md, and the trigger that makes the session log append-only. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = dialectOf(db);
  await createRuns(db);
  await createPlans(db);
  await createNodes(db);
  await createEvents(db);
  await createFileSnapshots(db);
  await createMemories(db, dialect);
  await forbidEventChanges(db, dialect);
}

/** One row per run: its task, workspace, status and current plan version. */
async function createRuns(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task', 'text', (c) => c.notNull())
    .addColumn('workspace', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('plan_version', 'integer')
    .addColumn('config', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
}

/** Every version of each run's plan, with its approval. */
async function createPlans(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('plans')
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('approved_at', 'text')
    .addPrimaryKeyConstraint('plans_pk', ['run_id', 'version'])
    .execute();
}

/** Each node's state and spending, as `status` and the dashboard read them. */
async function createNodes(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('nodes')
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('plan_version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cache_hit_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reasoning_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('nodes_pk', ['run_id', 'node_id'])
    .execute();
}

/** The session log, with the indexes that read it by node and by type. */
async function createEvents(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('node_id', 'text')
    .addColumn('turn', 'integer', (c) => c.notNull())
    .addColumn('step', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('surface_op', 'text')
    .addColumn('source_event_seqs', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('events_pk', ['run_id', 'seq'])
    .execute();
  await db.schema.createIndex('events_node_idx').on('events').columns(['run_id', 'node_id', 'seq']).execute();
  await db.schema.createIndex('events_type_idx').on('events').columns(['run_id', 'type', 'seq']).execute();
}

/** What each node's writes replaced, for `diff` and `revert`. */
async function createFileSnapshots(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('file_snapshots')
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id'))
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('content_before', 'text')
    .addColumn('hash_before', 'text')
    .addColumn('hash_after', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_snapshots_pk', ['run_id', 'node_id', 'path'])
    .execute();
}

/** What `remember` keeps across runs. */
async function createMemories(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('memories')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('keywords', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

/** The log is append-only at the database level: UPDATE and DELETE on `events` abort. */
async function forbidEventChanges(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'sqlite') {
    for (const operation of ['UPDATE', 'DELETE']) {
      await sql
        .raw(
          `CREATE TRIGGER events_no_${operation.toLowerCase()} BEFORE ${operation} ON events ` +
            `BEGIN SELECT RAISE(ABORT, 'events are append-only: ${operation} is not allowed'); END`,
        )
        .execute(db);
    }
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
        `BEGIN RAISE EXCEPTION 'events are append-only: % is not allowed', TG_OP; END $$`,
    )
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION events_append_only()`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['memories', 'file_snapshots', 'events', 'nodes', 'plans', 'runs']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  if (dialectOf(db) === 'postgres') await sql.raw('DROP FUNCTION IF EXISTS events_append_only()').execute(db);
}
