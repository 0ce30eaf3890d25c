import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { Database, NodesTable } from '../../db/database.js';
import { PreparedQuery } from '../../db/prepared-query.js';
import { nodeEventDraft } from './node-event.js';
import type { NodeTransition } from '../../scheduler/node-transition.js';
import type { EventLog } from '../../session/event-log.js';
import type { EventDraft } from '../../session/event-types.js';
import type { RowUpsert, UpsertCast } from '../../session/row-upsert.js';

export interface NodeTotals {
  readonly input: number;
  readonly output: number;
  readonly cacheHit: number;
  readonly reasoning: number;
  readonly costUsd: number;
}

export interface DescribedResult {
  readonly result: string;
  readonly filesChanged?: readonly string[];
  /** Events of the node that go in with its `node/succeeded`, in the same append, just before it (its `node/keyed`). */
  readonly before?: readonly EventDraft[];
}

/**
 * The events of a group of transitions. A node that becomes ready and starts in the same group
 * gets no `node/ready` event: its `node/started` says both, and the log stays one event smaller
 * per node on the hot path. A node that waits for a slot or a lock keeps its `node/ready`.
 */
export function nodeTransitionDrafts<R>(changes: readonly NodeTransition<R>[], describe: (result: R) => DescribedResult): EventDraft[] {
  const startedNow = new Set(changes.filter((change) => change.kind === 'started').map((change) => change.nodeId));
  const drafts: EventDraft[] = [];
  for (const change of changes) {
    if (change.kind === 'ready' && startedNow.has(change.nodeId)) continue;
    if (change.kind === 'succeeded') drafts.push(...(describe(change.result).before ?? []));
    const draft = nodeEventDraft(change, describe);
    if (draft !== undefined) drafts.push(draft);
  }
  return drafts;
}

export interface ProjectionContext<R> {
  /** The plan version a row gets if it did not exist yet (rows are normally made when the run starts). */
  readonly planVersion: number;
  readonly describe: (result: R) => DescribedResult;
  readonly totals?: (nodeId: string) => NodeTotals | undefined;
  /** When each running node started, filled in by `started` transitions, read when it settles. */
  readonly started?: Map<string, string>;
}

/**
 * Stores a group of transitions as the engine does: their `node/*` events and the `nodes`
 * projection, in one transaction (what a schedule's `onTransitions` does).
 */
export async function appendNodeTransitions<R>(log: EventLog, changes: readonly NodeTransition<R>[], context: ProjectionContext<R>): Promise<void> {
  if (!changes.some((change) => SETTLING_KINDS.has(change.kind))) {
    // Starts, readies, retries and resets write no row: their events alone, without a transaction
    // (PostgreSQL: one statement, grouped with the process's other appends). A wide stage's
    // starts were a transaction of some ten round trips that its workers waited for.
    const drafts = nodeTransitionDrafts(changes, context.describe);
    const events = drafts.length === 0 ? [] : await log.appendMany(drafts);
    await writeNodeProjection(log.db, log.runId, changes, { ...context, at: events.at(-1)?.createdAt ?? new Date().toISOString() });
    return;
  }
  await log.appendMany(nodeTransitionDrafts(changes, context.describe), {
    effects: (transaction, events) => writeNodeProjection(transaction, log.runId, changes, { ...context, at: events.at(-1)?.createdAt ?? new Date().toISOString() }),
    // PostgreSQL: the rows go in the statement of the events (an append's events share its `createdAt`).
    upserts: (createdAt) => nodeProjectionUpserts(log.runId, changes, { ...context, at: createdAt }),
  });
}

/**
 * The `nodes` rows `writeNodeProjection` writes for a group, as upserts that can join the
 * statement of the group's events; `undefined` for a group that settles one node twice (those
 * rows go one by one, in order).
 */
export function nodeProjectionUpserts<R>(runId: string, changes: readonly NodeTransition<R>[], context: ProjectionContext<R> & { readonly at: string }): RowUpsert[] | undefined {
  const { finished, skipped, repeated } = projectionRows(runId, changes, context);
  if (repeated) return undefined;
  return [
    ...(finished.length === 0 ? [] : [nodesUpsert(FINISHED_COLUMNS, finished)]),
    ...(skipped.length === 0 ? [] : [nodesUpsert(SKIPPED_COLUMNS, skipped)]),
  ];
}

function nodesUpsert(columns: readonly (readonly [keyof NodesTable, Cast])[], rows: readonly unknown[][]): RowUpsert {
  return {
    table: 'nodes',
    columns: columns.map(([column, cast]) => [column, cast ?? 'text'] as const),
    key: ['run_id', 'node_id'],
    updated: updatedColumns(columns),
    rows,
  };
}

/**
 * Keeps the `nodes` projection in step with a group of transitions, in the caller's transaction:
 * the settled state of each node (with its attempts, start and end, and its token and cost
 * totals) on `succeeded`, `failed`, `cancelled` and `skipped`. Transient states (`ready`,
 * `running`, `retried`, `reset`) live in the log alone — a resume folds them from there — so the
 * hot path writes one row per node, not three, and a group's rows go in a few multi-row upserts.
 */
export async function writeNodeProjection<R>(
  db: Transaction<Database> | Kysely<Database>,
  runId: string,
  changes: readonly NodeTransition<R>[],
  context: ProjectionContext<R> & { readonly at: string },
): Promise<void> {
  const { finished, skipped, inOrder, repeated } = projectionRows(runId, changes, context);
  if (!repeated) {
    await upsertRows(db, finished, upsertFinished);
    await upsertRows(db, skipped, upsertSkipped);
    return;
  }
  // A node that settled twice in one group (settled, restarted by an amendment, settled again):
  // one statement may not touch a row twice, so these go one by one, in order.
  for (const { upsert, row } of inOrder) await upsert(1).executeInOrder(db, row);
}

interface ProjectionRows {
  /** Parameters of the settled rows, in `FINISHED_COLUMNS` order. */
  readonly finished: unknown[][];
  /** Parameters of the skipped rows, in `SKIPPED_COLUMNS` order. */
  readonly skipped: unknown[][];
  /** Every settled row in order, for the rare group that settles one node twice. */
  readonly inOrder: { readonly upsert: (size: number) => PreparedQuery<string>; readonly row: unknown[] }[];
  readonly repeated: boolean;
}

/** The `nodes` rows of a group of transitions; `started` transitions are noted in `context.started`. */
function projectionRows<R>(runId: string, changes: readonly NodeTransition<R>[], context: ProjectionContext<R> & { readonly at: string }): ProjectionRows {
  const finished: unknown[][] = [];
  const skipped: unknown[][] = [];
  const inOrder: ProjectionRows['inOrder'] = [];
  const settledNodes = new Set<string>();
  let repeated = false;
  for (const change of changes) {
    const { nodeId } = change;
    if (change.kind === 'started') {
      context.started?.set(nodeId, context.at);
      continue;
    }
    if (change.kind === 'succeeded' || change.kind === 'failed' || change.kind === 'cancelled') {
      const totals = context.totals?.(nodeId) ?? ZERO_TOTALS;
      const result = change.kind === 'succeeded' ? context.describe(change.result).result : null;
      const error = change.kind === 'failed' ? change.error : change.kind === 'cancelled' ? change.reason : null;
      const started = context.started?.get(nodeId) ?? null;
      const row = [runId, nodeId, context.planVersion, change.to, change.attempts, started, context.at, result, error, totals.input, totals.output, totals.cacheHit, totals.reasoning, totals.costUsd];
      finished.push(row);
      inOrder.push({ upsert: upsertFinished, row });
    } else if (change.kind === 'skipped') {
      const row = [runId, nodeId, context.planVersion, change.to, change.attempts, change.reason];
      skipped.push(row);
      inOrder.push({ upsert: upsertSkipped, row });
    } else {
      continue;
    }
    if (settledNodes.has(nodeId)) repeated = true;
    settledNodes.add(nodeId);
  }
  return { finished, skipped, inOrder, repeated };
}

/** The transitions that write a `nodes` row (`writeNodeProjection`). */
const SETTLING_KINDS: ReadonlySet<NodeTransition<unknown>['kind']> = new Set(['succeeded', 'failed', 'cancelled', 'skipped']);

const ZERO_TOTALS: NodeTotals = { input: 0, output: 0, cacheHit: 0, reasoning: 0, costUsd: 0 };

/** Rows in as few statements as the prepared sizes allow. */
async function upsertRows(db: Kysely<Database>, rows: readonly unknown[][], statement: (size: number) => PreparedQuery<string>): Promise<void> {
  let index = 0;
  while (index < rows.length) {
    const size = UPSERT_SIZES.find((candidate) => candidate <= rows.length - index)!;
    const parameters: unknown[] = [];
    for (let offset = 0; offset < size; offset += 1) for (const value of rows[index + offset]!) parameters.push(value);
    await statement(size).executeInOrder(db, parameters);
    index += size;
  }
}

const UPSERT_SIZES = [16, 4, 1] as const;

type Cast = Exclude<UpsertCast, 'text'> | undefined;

/** What an upsert of `columns` changes in a row that exists: every column but the key and the plan version. */
function updatedColumns(columns: readonly (readonly [keyof NodesTable, Cast])[]): (keyof NodesTable)[] {
  return columns.map(([column]) => column).filter((column) => column !== 'run_id' && column !== 'node_id' && column !== 'plan_version');
}

/** The columns of a settled row, in parameter order, with the casts PostgreSQL needs for numbers. */
const FINISHED_COLUMNS: readonly (readonly [keyof NodesTable, Cast])[] = [
  ['run_id', undefined],
  ['node_id', undefined],
  ['plan_version', 'integer'],
  ['status', undefined],
  ['attempts', 'integer'],
  ['started_at', undefined],
  ['finished_at', undefined],
  ['result', undefined],
  ['error', undefined],
  ['input_tokens', 'integer'],
  ['output_tokens', 'integer'],
  ['cache_hit_tokens', 'integer'],
  ['reasoning_tokens', 'integer'],
  ['cost_usd', 'double precision'],
];

/** A skipped node keeps its times and totals from earlier sessions: only status, attempts and the reason change. */
const SKIPPED_COLUMNS: readonly (readonly [keyof NodesTable, Cast])[] = [
  ['run_id', undefined],
  ['node_id', undefined],
  ['plan_version', 'integer'],
  ['status', undefined],
  ['attempts', 'integer'],
  ['error', undefined],
];

const upsertFinished = upsertStatements(FINISHED_COLUMNS);
const upsertSkipped = upsertStatements(SKIPPED_COLUMNS);

/** Compiles the upserts of settled nodes' rows for `db`'s dialect now, not when the first nodes settle. */
export function warmNodeProjection(db: Kysely<Database>): void {
  for (const size of UPSERT_SIZES) upsertFinished(size).compileFor(db);
}

/**
 * Prepared multi-row upserts of `nodes` rows by size: INSERT … ON CONFLICT (run_id, node_id)
 * DO UPDATE SET every column but the key and the plan version, from `excluded`.
 */
function upsertStatements(columns: readonly (readonly [keyof NodesTable, Cast])[]): (size: number) => PreparedQuery<string> {
  const bySize = new Map<number, PreparedQuery<string>>();
  const updated = updatedColumns(columns);
  return (size) => {
    let statement = bySize.get(size);
    if (statement === undefined) {
      statement = new PreparedQuery<string>((db, param) =>
        db
          .insertInto('nodes')
          .values(
            Array.from({ length: size }, (_, row) =>
              Object.fromEntries(
                columns.map(([column, cast], index) => {
                  const marker = param(String(row * columns.length + index));
                  return [column, cast === undefined ? marker : sql`cast(${marker} as ${sql.raw(cast)})`];
                }),
              ) as unknown as Insertable<NodesTable>,
            ),
          )
          .onConflict((conflict) =>
            conflict.columns(['run_id', 'node_id']).doUpdateSet((eb) => Object.fromEntries(updated.map((column) => [column, eb.ref(`excluded.${column}`)])) as never),
          ),
      );
      bySize.set(size, statement);
    }
    return statement;
  };
}

/** A `nodes` row for each node (pending, nothing spent) that has none, and the plan version on every one: when a run starts and after a replan. */
export async function ensureNodeRows(transaction: Transaction<Database>, runId: string, planVersion: number, nodes: readonly { readonly id: string }[]): Promise<void> {
  // A few multi-row statements: one built and compiled per node cost ~16 ms for 100 nodes, after `run/started`.
  for (let start = 0; start < nodes.length; start += NODE_ROWS_PER_STATEMENT) {
    const rows = nodes.slice(start, start + NODE_ROWS_PER_STATEMENT).map((node) => ({ run_id: runId, node_id: node.id, plan_version: planVersion, status: 'pending', attempts: 0, started_at: null, finished_at: null, result: null, error: null, input_tokens: 0, output_tokens: 0, cache_hit_tokens: 0, reasoning_tokens: 0, cost_usd: 0 }));
    await transaction
      .insertInto('nodes')
      .values(rows)
      .onConflict((conflict) => conflict.columns(['run_id', 'node_id']).doUpdateSet({ plan_version: planVersion }))
      .execute();
  }
}

/** 14 parameters a row: well under SQLite's 32 766 and PostgreSQL's 65 535. */
const NODE_ROWS_PER_STATEMENT = 500;
