import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database, RunsTable } from '../../db/database.js';
import { AmbiguousRunError, UnknownRunError } from '../../errors.js';
import { thisProcess } from '../../process-state.js';
import { type RUN_MODES } from '../../session/index.js';
import { EventLog } from '../../session/event-log.js';
import { isRunStatus, type RunStatus } from './run-status.js';

export type RunMode = (typeof RUN_MODES)[number];

export interface RunRecord {
  readonly id: string;
  readonly task: string;
  readonly workspace: string;
  readonly mode: RunMode;
  readonly status: RunStatus;
  readonly planVersion: number | null;
  readonly config: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly finishedAt: string | null;
}

export interface CreateRunInput {
  readonly task: string;
  readonly workspace: string;
  readonly mode: RunMode;
  readonly status?: RunStatus;
  readonly config?: Readonly<Record<string, unknown>>;
  readonly now?: Date;
}

/**
 * Creates a run with a short id (`r-7f3a`, longer when short ids collide) and its `run/created`
 * event, in one transaction: no run is ever without its first event. The event names this process
 * (`pid`, `host`), so a run killed before its process took the run's lease is still seen gone.
 */
export async function createRun(db: Kysely<Database>, input: CreateRunInput): Promise<RunRecord> {
  const now = (input.now ?? new Date()).toISOString();
  const create = async (transaction: Kysely<Database>): Promise<string> => {
    for (let bytes = 2; ; bytes += 1) {
      const id = `r-${randomBytes(bytes).toString('hex')}`;
      // A write first (no read before it): SQLite takes the write lock, waiting for another writer, not failing on a stale read.
      const inserted = await transaction
        .insertInto('runs')
        .values({ id, task: input.task, workspace: input.workspace, mode: input.mode, status: input.status ?? 'planning', plan_version: null, config: JSON.stringify(input.config ?? {}), created_at: now, updated_at: now, finished_at: null })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) continue;
      await new EventLog(transaction, id).append({ type: 'run/created', payload: { task: input.task, workspace: input.workspace, mode: input.mode, ...thisProcess() } });
      return id;
    }
  };
  const id = db.isTransaction ? await create(db) : await db.transaction().execute(create);
  return getRun(db, id);
}

/** The run, or `UnknownRunError`. A unique prefix of an id is accepted too; a shared one is `AmbiguousRunError`. */
export async function getRun(db: Kysely<Database>, id: string): Promise<RunRecord> {
  const exact = await db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
  if (exact !== undefined) return runFromRow(exact);
  if (!/^[A-Za-z0-9-]+$/.test(id)) throw new UnknownRunError(id);
  const prefixed = await db.selectFrom('runs').selectAll().where('id', 'like', `${id}%`).orderBy('id').limit(11).execute();
  if (prefixed.length === 1) return runFromRow(prefixed[0]!);
  if (prefixed.length > 1) throw new AmbiguousRunError(id, prefixed.map((row) => row.id));
  throw new UnknownRunError(id);
}

/** Which runs `listRuns` and `countRuns` look at: all, or all but those of some modes (`dagent tool` calls are runs too). */
export interface RunSelection {
  readonly exceptModes?: readonly RunMode[];
}

/** The newest runs first (50 unless `limit` says otherwise). */
export async function listRuns(db: Kysely<Database>, options: RunSelection & { readonly limit?: number } = {}): Promise<RunRecord[]> {
  let select = db.selectFrom('runs').selectAll().orderBy('created_at', 'desc').orderBy('id').limit(options.limit ?? 50);
  if (options.exceptModes !== undefined && options.exceptModes.length > 0) select = select.where('mode', 'not in', [...options.exceptModes]);
  return (await select.execute()).map(runFromRow);
}

/** How many runs the store holds, by mode. */
export async function countRunsByMode(db: Kysely<Database>): Promise<Map<RunMode, number>> {
  const rows = await db.selectFrom('runs').select((eb) => ['mode', eb.fn.countAll<number | string | bigint>().as('count')]).groupBy('mode').execute();
  return new Map(rows.map((row) => [row.mode as RunMode, Number(row.count)]));
}

export function runFromRow(row: Selectable<RunsTable>): RunRecord {
  return {
    id: row.id,
    task: row.task,
    workspace: row.workspace,
    mode: row.mode as RunMode,
    status: isRunStatus(row.status) ? row.status : 'failed',
    planVersion: row.plan_version === null ? null : Number(row.plan_version),
    config: JSON.parse(row.config) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}
