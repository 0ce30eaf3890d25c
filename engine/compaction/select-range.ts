import type { SurfaceEvent } from '../session/index.js';
import { groupTurns, type SurfaceLayout } from './turns.js';

/** How many of the most recent turns a compaction keeps verbatim (SPEC §5.1). */
export const DEFAULT_KEEP_TURNS = 3;

/** A contiguous slice of a surface, by index, both ends inclusive. */
export interface SurfaceRange {
  readonly first: number;
  readonly last: number;
}

export type RangeProblem =
  | { readonly kind: 'out-of-bounds' }
  | { readonly kind: 'includes-pinned'; readonly index: number }
  | { readonly kind: 'splits-tool-call'; readonly toolCallId: string; readonly callIndex?: number; readonly resultIndex?: number };

export type RangeValidation = { readonly valid: true } | { readonly valid: false; readonly problems: readonly RangeProblem[] };

/**
 * Checks that a range may be replaced: inside the surface, clear of the pinned instruction, and
 * holding every tool call together with its result. A call in the range whose result has not
 * arrived yet splits the pair too (the result would land outside the range). Pure.
 */
export function validateRange(surface: readonly SurfaceEvent[], range: SurfaceRange, layout = groupTurns(surface)): RangeValidation {
  if (!(Number.isInteger(range.first) && Number.isInteger(range.last) && range.first >= 0 && range.first <= range.last && range.last < surface.length)) {
    return { valid: false, problems: [{ kind: 'out-of-bounds' }] };
  }
  const problems: RangeProblem[] = [];
  if (range.first < layout.pinned) problems.push({ kind: 'includes-pinned', index: range.first });
  const calls = new Map<string, number>();
  const results = new Map<string, number>();
  surface.forEach((event, index) => {
    if (event.type === 'assistant/message') for (const call of event.payload.toolCalls) calls.set(call.id, index);
    else if (event.type === 'tool/result') results.set(event.payload.toolCallId, index);
  });
  const inside = (index: number | undefined): boolean => index !== undefined && index >= range.first && index <= range.last;
  for (const [toolCallId, callIndex] of calls) {
    const resultIndex = results.get(toolCallId);
    if (inside(callIndex) !== inside(resultIndex)) {
      problems.push({ kind: 'splits-tool-call', toolCallId, callIndex, ...(resultIndex === undefined ? {} : { resultIndex }) });
    }
  }
  return problems.length === 0 ? { valid: true } : { valid: false, problems };
}

export interface SelectRangeOptions {
  /** Most recent turns (assistant messages with their results) kept verbatim; 3 by default. */
  readonly keepTurns?: number;
  /**
   * The most tokens the range may hold (the summarizer must be able to read it). The range then
   * covers only the oldest turns that fit. `tokensOf` is required with it.
   */
  readonly maxTokens?: number;
  readonly tokensOf?: (index: number) => number;
}

export type RangeSelection =
  | { readonly kind: 'range'; readonly range: SurfaceRange; readonly turns: number }
  | { readonly kind: 'none'; readonly reason: 'too-few-turns' | 'too-large' | 'unsplittable' };

/**
 * Where to cut for compaction, oldest history first: every turn before the most recent
 * `keepTurns` turns (and the trailing messages not answered yet), never the pinned prefix, and only
 * whole turns. Bounded by `maxTokens`; moved earlier if a boundary would split a tool call from
 * its result. Pure.
 */
export function selectRange(surface: readonly SurfaceEvent[], options: SelectRangeOptions = {}): RangeSelection {
  const layout = groupTurns(surface);
  const candidates = compactableTurns(layout, options.keepTurns ?? DEFAULT_KEEP_TURNS);
  if (candidates === 0) return { kind: 'none', reason: 'too-few-turns' };
  let count = candidates;
  if (options.maxTokens !== undefined) {
    const tokensOf = options.tokensOf ?? (() => 0);
    let total = 0;
    count = 0;
    for (const turn of layout.turns.slice(0, candidates)) {
      for (let index = turn.first; index <= turn.last; index += 1) total += tokensOf(index);
      if (total > options.maxTokens) break;
      count += 1;
    }
    if (count === 0) return { kind: 'none', reason: 'too-large' };
  }
  const first = layout.turns[0]!.first;
  for (; count > 0; count -= 1) {
    const range = { first, last: layout.turns[count - 1]!.last };
    if (validateRange(surface, range, layout).valid) return { kind: 'range', range, turns: count };
  }
  return { kind: 'none', reason: 'unsplittable' };
}

/** How many leading turns lie before the kept ones. */
export function compactableTurns(layout: SurfaceLayout, keepTurns: number): number {
  const open = layout.turns.at(-1)?.assistant === undefined ? 1 : 0;
  let kept = 0;
  for (let index = layout.turns.length - open; index > 0; index -= 1) {
    if (kept >= keepTurns) return index;
    kept += 1;
  }
  return 0;
}

/** The surface indices a compaction may touch: after the pinned prefix, before the kept turns. */
export function compactableSpan(layout: SurfaceLayout, keepTurns: number): SurfaceRange | undefined {
  const count = compactableTurns(layout, keepTurns);
  if (count === 0) return undefined;
  return { first: layout.turns[0]!.first, last: layout.turns[count - 1]!.last };
}
