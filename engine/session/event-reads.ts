import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { EVENT_READ_COLUMNS, eventFromRow, type EventReadRow } from './event-row.js';
import type { EventType, SessionEvent } from './event-types.js';

export interface EventQuery<T extends EventType = EventType> {
  /** Only this node's events; `null` for run-level events; omitted for all. */
  readonly nodeId?: string | null;
  /** Only these nodes' events (at least one; not with `nodeId`). */
  readonly nodeIds?: readonly string[];
  /** Only events of these types; the result is typed by them. */
  readonly types?: readonly T[];
  /** Inclusive lower bound. */
  readonly fromSeq?: number;
  /** Inclusive upper bound. */
  readonly toSeq?: number;
  readonly limit?: number;
}

export async function readEvents<T extends EventType = EventType>(db: Kysely<Database>, runId: string, query: EventQuery<T> = {}): Promise<SessionEvent<T>[]> {
  const types = query.types ?? [];
  const nodeIds = query.nodeIds ?? [];
  const values: Record<string, unknown> = { run: runId, node: query.nodeId, from: query.fromSeq, to: query.toSeq, limit: query.limit };
  for (const [index, type] of types.entries()) values[`type${index}`] = type;
  for (const [index, nodeId] of nodeIds.entries()) values[`node${index}`] = nodeId;
  const { rows } = await readQuery(query, types.length, nodeIds.length).execute<EventReadRow>(db, values);
  // The `type` filter is what makes every row one of `T`.
  return rows.map((row) => eventFromRow(runId, row)) as SessionEvent<T>[];
}

/**
 * The read of one shape of query (which filters it has, how many types), built once: a run's
 * nodes read their steering and compaction state at every step, and building the same select
 * each time cost as much as running it.
 */
function readQuery(query: EventQuery, typeCount: number, nodeCount: number): PreparedQuery<string> {
  const node = query.nodeId === null ? 'null' : query.nodeId !== undefined ? 'one' : nodeCount > 0 ? 'many' : 'any';
  const shape = `${node}:${nodeCount}:${typeCount}:${query.fromSeq !== undefined}:${query.toSeq !== undefined}:${query.limit !== undefined}`;
  let prepared = readQueries.get(shape);
  if (prepared === undefined) {
    prepared = new PreparedQuery<string>((db, param) => {
      let select = db.selectFrom('events').select(EVENT_READ_COLUMNS).where('run_id', '=', param('run'));
      if (node === 'null') select = select.where('node_id', 'is', null);
      else if (node === 'one') select = select.where('node_id', '=', param('node'));
      else if (node === 'many') select = select.where('node_id', 'in', Array.from({ length: nodeCount }, (_, index) => param(`node${index}`)));
      if (typeCount > 0) select = select.where('type', 'in', Array.from({ length: typeCount }, (_, index) => param(`type${index}`)));
      if (query.fromSeq !== undefined) select = select.where('seq', '>=', param('from') as unknown as number);
      if (query.toSeq !== undefined) select = select.where('seq', '<=', param('to') as unknown as number);
      select = select.orderBy('seq');
      if (query.limit !== undefined) select = select.limit(param('limit') as unknown as number);
      return select;
    });
    readQueries.set(shape, prepared);
  }
  return prepared;
}

const readQueries = new Map<string, PreparedQuery<string>>();
