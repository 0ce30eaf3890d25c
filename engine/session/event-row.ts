import type { Selectable } from 'kysely';
import type { EventsTable } from '../db/database.js';
import type { SessionEvent, SurfaceOp } from './event-types.js';
import { readStoredPayload } from './stored-payload.js';

/** The columns an event is read back from: all but `run_id`, which the reader asked for and knows. */
export const EVENT_READ_COLUMNS = ['seq', 'node_id', 'turn', 'step', 'type', 'payload', 'surface_op', 'source_event_seqs', 'created_at', 'version'] as const;

/** A row as read back: `EVENT_READ_COLUMNS`. */
export type EventReadRow = Pick<Selectable<EventsTable>, (typeof EVENT_READ_COLUMNS)[number]>;

/**
 * A stored row of run `runId` back into an event, its payload validated against the version it was
 * written with (`readStoredPayload`: a row that does not match is a `StoredEventError` naming run,
 * seq and type).
 */
export function eventFromRow(runId: string, row: EventReadRow): SessionEvent {
  const event: EventFields = {
    seq: Number(row.seq),
    runId,
    nodeId: row.node_id,
    turn: Number(row.turn),
    step: Number(row.step),
    type: row.type,
    payload: readStoredPayload(runId, row),
    createdAt: row.created_at,
  };
  return withOptionalFields(event, row);
}

/** The event just inserted, built from the values in hand instead of re-reading the row. */
export function eventFromDraftRow(
  row: Omit<Selectable<EventsTable>, 'seq'> & { readonly parsedPayload: unknown },
  seq: number,
): SessionEvent {
  const event: EventFields = {
    seq,
    runId: row.run_id,
    nodeId: row.node_id,
    turn: row.turn,
    step: row.step,
    type: row.type,
    payload: row.parsedPayload,
    createdAt: row.created_at,
  };
  return withOptionalFields(event, row);
}

interface EventFields {
  seq: number;
  runId: string;
  nodeId: string | null;
  turn: number;
  step: number;
  type: string;
  payload: unknown;
  createdAt: string;
  surfaceOp?: SurfaceOp;
  sourceEventSeqs?: number[];
}

/** Adds the fields only some events have, in place (no spreads: this runs for every event read or written). */
function withOptionalFields(event: EventFields, row: { readonly surface_op: string | null; readonly source_event_seqs: string | null }): SessionEvent {
  if (row.surface_op !== null) event.surfaceOp = JSON.parse(row.surface_op) as SurfaceOp;
  if (row.source_event_seqs !== null) event.sourceEventSeqs = JSON.parse(row.source_event_seqs) as number[];
  return event as SessionEvent;
}
