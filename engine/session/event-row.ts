import type { Selectable } from 'kysely';
import type { EventsTable } from '../db/database.js';
import type { SessionEvent, SurfaceOp } from './event-types.js';

/** A stored row back into an event. Payloads were validated when they were appended. */
export function eventFromRow(row: Selectable<EventsTable>): SessionEvent {
  const event = {
    seq: Number(row.seq),
    runId: row.run_id,
    nodeId: row.node_id,
    turn: Number(row.turn),
    step: Number(row.step),
    type: row.type,
    payload: JSON.parse(row.payload) as unknown,
    createdAt: row.created_at,
    ...(row.surface_op === null ? {} : { surfaceOp: JSON.parse(row.surface_op) as SurfaceOp }),
    ...(row.source_event_seqs === null ? {} : { sourceEventSeqs: JSON.parse(row.source_event_seqs) as number[] }),
  };
  return event as SessionEvent;
}

/** The event just inserted, built from the values in hand instead of re-reading the row. */
export function eventFromDraftRow(
  row: Omit<Selectable<EventsTable>, 'seq'> & { readonly parsedPayload: unknown },
  seq: number,
): SessionEvent {
  return {
    seq,
    runId: row.run_id,
    nodeId: row.node_id,
    turn: row.turn,
    step: row.step,
    type: row.type,
    payload: row.parsedPayload,
    createdAt: row.created_at,
    ...(row.surface_op === null ? {} : { surfaceOp: JSON.parse(row.surface_op) as SurfaceOp }),
    ...(row.source_event_seqs === null ? {} : { sourceEventSeqs: JSON.parse(row.source_event_seqs) as number[] }),
  } as SessionEvent;
}
