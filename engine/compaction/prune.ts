import { estimateMessageTokens } from '../model/index.js';
import type { EventDraft, SessionEvent, SurfaceEvent } from '../session/index.js';
import type { SurfaceRange } from './select-range.js';
import { surfacePosition } from './turns.js';

/** Tool outputs smaller than this are not worth a placeholder. */
export const PRUNE_MIN_TOKENS = 100;
/** The longest argument a placeholder quotes. */
const MAX_PLACEHOLDER_ARG_CHARS = 80;
/** Argument names, in order of preference, that say what a tool call was about. */
const DESCRIBING_ARGS = ['path', 'file_path', 'file', 'command', 'pattern', 'url', 'query', 'symbol'] as const;

export interface PruneInput {
  readonly surface: readonly SurfaceEvent[];
  /** The indices pruning may touch; undefined when there are none. */
  readonly span: SurfaceRange | undefined;
  readonly tokensOf: (index: number) => number;
  /**
   * The size outputs are ranked by, biggest first; `tokensOf` by default. A cheap proxy (the
   * text's length) spares estimating the tokens of outputs that pruning never reaches.
   */
  readonly sizeOf?: (index: number) => number;
  /** Tokens of the request now. */
  readonly tokens: number;
  /** Pruning stops as soon as the request is at or under this; 0 prunes everything it can. */
  readonly targetTokens: number;
  readonly minTokens?: number;
}

export interface PlannedPrune {
  readonly index: number;
  readonly event: SessionEvent<'tool/result'>;
  readonly placeholder: string;
  readonly savedTokens: number;
}

export interface PrunePlan {
  readonly prunes: readonly PlannedPrune[];
  readonly tokensAfter: number;
  readonly reachesTarget: boolean;
}

/**
 * Stage 1 of compaction, planned purely: which old tool outputs to replace by placeholders,
 * biggest first (oldest first among equals), stopping as soon as the request is under the target.
 * Outputs already pruned, and outputs too small to matter, are left alone.
 */
export function planPrune(input: PruneInput): PrunePlan {
  const minTokens = input.minTokens ?? PRUNE_MIN_TOKENS;
  if (input.tokens <= input.targetTokens) return { prunes: [], tokensAfter: input.tokens, reachesTarget: true };
  if (input.span === undefined) return { prunes: [], tokensAfter: input.tokens, reachesTarget: false };
  const callArgs = toolCallArgs(input.surface);
  const sizeOf = input.sizeOf ?? input.tokensOf;
  const candidates: { index: number; event: SessionEvent<'tool/result'>; size: number }[] = [];
  for (let index = input.span.first; index <= input.span.last; index += 1) {
    const event = input.surface[index]!;
    if (event.type !== 'tool/result' || isPrunedResult(event)) continue;
    candidates.push({ index, event, size: sizeOf(index) });
  }
  candidates.sort((a, b) => b.size - a.size || a.index - b.index);
  const prunes: PlannedPrune[] = [];
  let tokensAfter = input.tokens;
  for (const { index, event } of candidates) {
    if (tokensAfter <= input.targetTokens) break;
    const tokens = input.tokensOf(index);
    if (tokens < minTokens) continue;
    const placeholder = prunePlaceholder(event, callArgs.get(event.payload.toolCallId));
    const savedTokens = tokens - placeholderTokens(event, placeholder);
    if (savedTokens <= 0) continue;
    prunes.push({ index, event, placeholder, savedTokens });
    tokensAfter -= savedTokens;
  }
  prunes.sort((a, b) => a.index - b.index);
  return { prunes, tokensAfter, reachesTarget: tokensAfter <= input.targetTokens };
}

/** `[output of read_file src/a.ts pruned — recall_history seq=42]` */
export function prunePlaceholder(event: SessionEvent<'tool/result'>, args?: unknown): string {
  const about = describeArgs(event.payload.meta.args ?? args);
  return `[output of ${event.payload.name}${about === '' ? '' : ` ${about}`} pruned — recall_history seq=${event.seq}]`;
}

/** True for a placeholder written by pruning. */
export function isPrunedResult(event: SurfaceEvent): boolean {
  return event.type === 'tool/result' && event.payload.meta['pruned'] === true;
}

/** The `tool/result` that replaces one output on the surface, pointing back at the original. */
export function prunedResultDraft(prune: PlannedPrune): EventDraft<'tool/result'> {
  const { event } = prune;
  const position = surfacePosition(event);
  return {
    type: 'tool/result',
    payload: {
      toolCallId: event.payload.toolCallId,
      name: event.payload.name,
      content: prune.placeholder,
      isError: event.payload.isError,
      meta: {
        ...event.payload.meta,
        truncated: true,
        originalLength: event.payload.content.length,
        pruned: true,
        prunedSeq: event.seq,
      },
    },
    surfaceOp: { op: 'replace', start: position, end: position },
    sourceEventSeqs: [event.seq],
  };
}

function placeholderTokens(event: SessionEvent<'tool/result'>, placeholder: string): number {
  return estimateMessageTokens({
    role: 'tool',
    seq: event.seq,
    toolCallId: event.payload.toolCallId,
    toolName: event.payload.name,
    content: placeholder,
    isError: event.payload.isError,
  });
}

function toolCallArgs(surface: readonly SurfaceEvent[]): Map<string, unknown> {
  const args = new Map<string, unknown>();
  for (const event of surface) {
    if (event.type === 'assistant/message') for (const call of event.payload.toolCalls) args.set(call.id, call.args);
  }
  return args;
}

function describeArgs(args: unknown): string {
  if (args === null || typeof args !== 'object') return '';
  const record = args as Record<string, unknown>;
  for (const key of DESCRIBING_ARGS) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') {
      const oneLine = value.replace(/\s+/g, ' ').trim();
      return oneLine.length > MAX_PLACEHOLDER_ARG_CHARS ? `${oneLine.slice(0, MAX_PLACEHOLDER_ARG_CHARS - 1)}…` : oneLine;
    }
  }
  return '';
}
