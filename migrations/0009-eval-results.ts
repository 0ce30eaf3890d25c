import type { Kysely } from 'kysely';

/**
 * `dagent eval`: one row per task, mode and repetition of an evaluation, so evaluations of two
 * models or two versions can be compared later. The run's own log stays the truth: the row holds
 * the figures read from it, the verifier's verdict and the plan drift.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('eval_results')
    .addColumn('eval_id', 'text', (column) => column.notNull())
    .addColumn('task', 'text', (column) => column.notNull())
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('repetition', 'integer', (column) => column.notNull())
    .addColumn('suite', 'text', (column) => column.notNull())
    .addColumn('label', 'text')
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('dagent_version', 'text', (column) => column.notNull())
    .addColumn('run_id', 'text')
    .addColumn('run_status', 'text', (column) => column.notNull())
    .addColumn('passed', 'integer', (column) => column.notNull())
    .addColumn('verifier_exit', 'integer')
    .addColumn('input_tokens', 'integer', (column) => column.notNull())
    .addColumn('output_tokens', 'integer', (column) => column.notNull())
    .addColumn('cache_hit_tokens', 'integer', (column) => column.notNull())
    .addColumn('cost_usd', 'double precision', (column) => column.notNull())
    .addColumn('wall_ms', 'integer')
    .addColumn('critical_path', 'text', (column) => column.notNull())
    .addColumn('critical_path_ms', 'integer')
    .addColumn('planned_files', 'text', (column) => column.notNull())
    .addColumn('changed_files', 'text', (column) => column.notNull())
    .addColumn('drift', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('eval_results_pk', ['eval_id', 'task', 'mode', 'repetition'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('eval_results').execute();
}
