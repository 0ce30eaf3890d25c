import type { SurfaceEvent } from '../session/index.js';

/**
 * One turn of a node's history: an assistant message with its tool results, preceded by the
 * user and runtime-context messages that led to it. Indices are into the surface, inclusive.
 */
export interface Turn {
  readonly first: number;
  readonly last: number;
  /** Undefined for the open turn at the end: messages the model has not answered yet. */
  readonly assistant: number | undefined;
}

/** A surface seen as the pinned prefix (the node's instruction and hand-overs) and its turns. */
export interface SurfaceLayout {
  /** Indices `0 .. pinned - 1` are pinned: never compacted. */
  readonly pinned: number;
  readonly turns: readonly Turn[];
}

/** Sources of the messages that stay pinned when they come before the node's first model reply. */
const PINNED_SOURCES: ReadonlySet<string> = new Set(['instruction', 'handoff']);

/**
 * Groups a surface into its pinned prefix and its turns. The prefix ends with the last
 * instruction or hand-over message before the first assistant message. A tool result joins the
 * turn it follows; a user message opens the next one. Pure.
 */
export function groupTurns(surface: readonly SurfaceEvent[]): SurfaceLayout {
  const pinned = pinnedCount(surface);
  const turns: Turn[] = [];
  let pendingFirst: number | undefined;
  let current: { first: number; last: number; assistant: number } | undefined;
  for (let index = pinned; index < surface.length; index += 1) {
    const event = surface[index]!;
    if (event.type === 'assistant/message') {
      if (current !== undefined) turns.push(current);
      current = { first: pendingFirst ?? index, last: index, assistant: index };
      pendingFirst = undefined;
    } else if (event.type === 'tool/result' && pendingFirst === undefined && current !== undefined) {
      current.last = index;
    } else {
      pendingFirst ??= index;
    }
  }
  if (current !== undefined) turns.push(current);
  if (pendingFirst !== undefined) turns.push({ first: pendingFirst, last: surface.length - 1, assistant: undefined });
  return { pinned, turns };
}

function pinnedCount(surface: readonly SurfaceEvent[]): number {
  let count = 0;
  for (let index = 0; index < surface.length; index += 1) {
    const event = surface[index]!;
    if (event.type === 'assistant/message') break;
    if (event.type === 'user/message' && PINNED_SOURCES.has(event.payload.source)) count = index + 1;
  }
  return count;
}

/** The position of a surface event: a replacing event stands where its range started. */
export function surfacePosition(event: SurfaceEvent): number {
  return event.surfaceOp?.start ?? event.seq;
}
