import type { ModelMessage } from '../model/model-message.js';
import type { SessionEvent } from './event-types.js';

/** The event types that take part in building model messages. Everything else stays log-only. */
export const SURFACE_EVENT_TYPES = ['user/message', 'assistant/message', 'tool/result'] as const;

export type SurfaceEvent = SessionEvent<(typeof SURFACE_EVENT_TYPES)[number]>;

export function isSurfaceEvent(event: SessionEvent): event is SurfaceEvent {
  return event.type === 'user/message' || event.type === 'assistant/message' || event.type === 'tool/result';
}

/** One event's message. Pure: the same event always derives the same message. */
export function eventToMessage(event: SurfaceEvent): ModelMessage {
  switch (event.type) {
    case 'user/message':
      return {
        role: 'user',
        seq: event.seq,
        source: event.payload.source,
        content: event.payload.content,
        ...(event.payload.images === undefined ? {} : { images: event.payload.images }),
      };
    case 'assistant/message':
      return {
        role: 'assistant',
        seq: event.seq,
        content: event.payload.content,
        toolCalls: event.payload.toolCalls.map((call) => ({
          id: call.id,
          name: call.name,
          args: call.args,
          ...(call.argsText === undefined ? {} : { argsText: call.argsText }),
        })),
        ...(event.payload.reasoning === undefined ? {} : { reasoning: event.payload.reasoning }),
        ...(event.payload.reasoningSignature === undefined ? {} : { reasoningSignature: event.payload.reasoningSignature }),
      };
    case 'tool/result':
      return {
        role: 'tool',
        seq: event.seq,
        toolCallId: event.payload.toolCallId,
        toolName: event.payload.name,
        content: event.payload.content,
        isError: event.payload.isError,
      };
  }
}

/**
 * A surface entry: the event and its position key. An event that replaces `[start, end]` takes
 * the position `start`, so positions stay sorted while seqs need not.
 */
export interface SurfaceEntry {
  readonly position: number;
  readonly event: SurfaceEvent;
}

/**
 * Applies one event to a surface in place. Returns true when it was a replace (the caller bumps
 * its generation), false when the event was appended at the end.
 */
export function applyToSurface(surface: SurfaceEntry[], event: SurfaceEvent): boolean {
  const op = event.surfaceOp;
  if (op === undefined) {
    surface.push({ position: event.seq, event });
    return false;
  }
  const first = lowerBound(surface, op.start);
  let last = first;
  while (last < surface.length && surface[last]!.position <= op.end) last += 1;
  surface.splice(first, last - first, { position: op.start, event });
  return true;
}

function lowerBound(surface: readonly SurfaceEntry[], position: number): number {
  let low = 0;
  let high = surface.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (surface[middle]!.position < position) low = middle + 1;
    else high = middle;
  }
  return low;
}
