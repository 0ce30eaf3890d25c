import type { Kysely } from 'kysely';
import type { Database } from '../../engine/index.js';
import type { EvalMode } from './eval-suite.js';

/** One attempt of one task in one mode: what the table shows and the store keeps. */
export interface EvalResult {
  readonly evalId: string;
  readonly suite: string;
  readonly label: string | null;
  readonly model: string;
  readonly dagentVersion: string;
  readonly task: string;
  readonly mode: EvalMode;
  readonly repetition: number;
  readonly runId: string | null;
  readonly runStatus: string;
  readonly passed: boolean;
  readonly verifierExit: number | null;
  readonly tokens: { readonly input: number; readonly output: number; readonly cacheHit: number };
  readonly costUsd: number;
  /** From the run's first event (`run/created`, so planning counts) to its end, as the log dates them. */
  readonly wallMs: number | null;
  /** Plan runs: the critical path (node ids) weighed by measured time, and its length in ms. */
  readonly criticalPath: readonly string[];
  readonly criticalPathMs: number | null;
  /** The `writes` of the plan as first approved (plan runs), and the files the run changed (both modes). */
  readonly plannedFiles: readonly string[];
  readonly changedFiles: readonly string[];
  /** Plan runs only: changed files the plan did not name, named files that did not change. */
  readonly drift: { readonly unplanned: readonly string[]; readonly unwritten: readonly string[] } | null;
  readonly error: string | null;
  readonly createdAt: string;
}

interface EvalResultsTable {
  eval_id: string;
  task: string;
  mode: string;
  repetition: number;
  suite: string;
  label: string | null;
  model: string;
  dagent_version: string;
  run_id: string | null;
  run_status: string;
  passed: number;
  verifier_exit: number | null;
  input_tokens: number;
  output_tokens: number;
  cache_hit_tokens: number;
  cost_usd: number;
  wall_ms: number | null;
  critical_path: string;
  critical_path_ms: number | null;
  planned_files: string;
  changed_files: string;
  drift: string | null;
  error: string | null;
  created_at: string;
}

type EvalDb = Kysely<Database & { eval_results: EvalResultsTable }>;
const evalDb = (db: Kysely<Database>): EvalDb => db.withTables<{ eval_results: EvalResultsTable }>();

export async function saveEvalResult(db: Kysely<Database>, result: EvalResult): Promise<void> {
  await evalDb(db)
    .insertInto('eval_results')
    .values({
      eval_id: result.evalId,
      task: result.task,
      mode: result.mode,
      repetition: result.repetition,
      suite: result.suite,
      label: result.label,
      model: result.model,
      dagent_version: result.dagentVersion,
      run_id: result.runId,
      run_status: result.runStatus,
      passed: result.passed ? 1 : 0,
      verifier_exit: result.verifierExit,
      input_tokens: result.tokens.input,
      output_tokens: result.tokens.output,
      cache_hit_tokens: result.tokens.cacheHit,
      cost_usd: result.costUsd,
      wall_ms: result.wallMs,
      critical_path: JSON.stringify(result.criticalPath),
      critical_path_ms: result.criticalPathMs,
      planned_files: JSON.stringify(result.plannedFiles),
      changed_files: JSON.stringify(result.changedFiles),
      drift: result.drift === null ? null : JSON.stringify(result.drift),
      error: result.error,
      created_at: result.createdAt,
    })
    .execute();
}

/** Every result of the evaluations whose id starts with `prefix` (all evaluations with none), oldest first. */
export async function readEvalResults(db: Kysely<Database>, prefix?: string): Promise<EvalResult[]> {
  let query = evalDb(db).selectFrom('eval_results').selectAll();
  if (prefix !== undefined) query = query.where('eval_id', 'like', `${prefix.replace(/[%_\\]/g, '')}%`);
  const rows = await query.orderBy('created_at').orderBy('eval_id').orderBy('task').orderBy('mode').orderBy('repetition').execute();
  return rows.map(resultOf);
}

function resultOf(row: EvalResultsTable): EvalResult {
  return {
    evalId: row.eval_id,
    suite: row.suite,
    label: row.label,
    model: row.model,
    dagentVersion: row.dagent_version,
    task: row.task,
    mode: row.mode as EvalMode,
    repetition: Number(row.repetition),
    runId: row.run_id,
    runStatus: row.run_status,
    passed: Number(row.passed) === 1,
    verifierExit: row.verifier_exit === null ? null : Number(row.verifier_exit),
    tokens: { input: Number(row.input_tokens), output: Number(row.output_tokens), cacheHit: Number(row.cache_hit_tokens) },
    costUsd: Number(row.cost_usd),
    wallMs: row.wall_ms === null ? null : Number(row.wall_ms),
    criticalPath: JSON.parse(row.critical_path) as string[],
    criticalPathMs: row.critical_path_ms === null ? null : Number(row.critical_path_ms),
    plannedFiles: JSON.parse(row.planned_files) as string[],
    changedFiles: JSON.parse(row.changed_files) as string[],
    drift: row.drift === null ? null : (JSON.parse(row.drift) as EvalResult['drift']),
    error: row.error,
    createdAt: row.created_at,
  };
}
