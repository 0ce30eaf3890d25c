import type { SessionEvent } from '../../engine/read-face.js';

export type SpanAttributeValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanAttributeValue>;

/** One span as the log tells it, before any tracing library sees it. */
export interface LogSpan {
  /** Unique within the run and stable: `run`, `node:<id>:<seq>`, `model:<seq>`, `tool:<call id>`, … */
  readonly key: string;
  readonly parentKey: string | null;
  readonly name: string;
  readonly kind: 'internal' | 'client';
  readonly startTime: string;
  readonly startSeq: number;
  /** Null while the log has not ended it. */
  endTime: string | null;
  endSeq: number | null;
  readonly attributes: SpanAttributes;
  /** Why it failed (the span's error status), or null. */
  error: string | null;
}

/** The fold's state: spans by key, and which are open per node, surface and replan. */
export interface SpanState {
  readonly runId: string;
  readonly includeContent: boolean;
  readonly spans: Map<string, LogSpan>;
  readonly openAttempts: Map<string, string>;
  readonly openModelCalls: Map<string, string>;
  openReplan: string | null;
  planVersion: number | null;
  /** The span of the run's current execution: `run`, or the `resume:<seq>` span of a run resumed after it ended. */
  execution: string;
}

export function newSpanState(runId: string, includeContent: boolean): SpanState {
  return { runId, includeContent, spans: new Map(), openAttempts: new Map(), openModelCalls: new Map(), openReplan: null, planVersion: null, execution: 'run' };
}

export function spanOf(state: SpanState, key: string): LogSpan | undefined {
  return state.spans.get(key);
}

/** Starts a span at `event`, with the run id and the plan version in force. */
export function openSpan(
  state: SpanState,
  event: Pick<SessionEvent, 'seq' | 'createdAt'>,
  init: { key: string; parentKey: string | null; name: string; kind?: LogSpan['kind']; attributes: SpanAttributes },
): LogSpan {
  const span: LogSpan = {
    key: init.key,
    parentKey: init.parentKey,
    name: init.name,
    kind: init.kind ?? 'internal',
    startTime: event.createdAt,
    startSeq: event.seq,
    endTime: null,
    endSeq: null,
    attributes: { 'dagent.run.id': state.runId, ...(state.planVersion === null ? {} : { 'dagent.plan.version': state.planVersion }), ...init.attributes },
    error: null,
  };
  state.spans.set(init.key, span);
  return span;
}

/** Ends an open span at `event`; an error makes its status an error. */
export function closeSpan(state: SpanState, key: string, event: Pick<SessionEvent, 'seq' | 'createdAt'>, error: string | null): LogSpan | undefined {
  const span = state.spans.get(key);
  if (span === undefined || span.endTime !== null) return undefined;
  span.endTime = event.createdAt;
  span.endSeq = event.seq;
  span.error = error;
  return span;
}
