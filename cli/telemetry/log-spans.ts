import type { SessionEvent } from '../../engine/read-face.js';
import { closeSpan, newSpanState, openSpan, spanOf, type LogSpan, type SpanState } from './span-state.js';

export type { LogSpan, SpanAttributes } from './span-state.js';

export interface LogSpanOptions {
  /** Model answers, tool arguments and tool results as attributes (`telemetry.includeContent`); off by default. */
  readonly includeContent?: boolean;
}

/**
 * The spans of a run, derived from its log alone: one for the run, each node attempt, model call,
 * tool call, compaction, replan and approval wait, nested run → node → model and tool calls. A
 * pure fold: the same log gives the same spans (their ids are hashed from the run id and the log),
 * whether they are built live while the run goes or afterwards by `dagent trace`, in the process
 * that scheduled the run or from the events workers appended. A span the log has not ended yet
 * has `endTime: null`.
 */
export function spansFromLog(runId: string, events: readonly SessionEvent[], options: LogSpanOptions = {}): LogSpan[] {
  const state = newSpanState(runId, options.includeContent === true);
  for (const event of events) foldEvent(state, event);
  return [...state.spans.values()];
}

function foldEvent(state: SpanState, event: SessionEvent): void {
  switch (event.type) {
    case 'run/created':
    case 'run/started':
    case 'run/succeeded':
    case 'run/failed':
    case 'run/cancelled':
    case 'plan/rejected':
    case 'plan/created':
    case 'plan/amended':
      return foldRunEvent(state, event);
    case 'node/started':
    case 'node/succeeded':
    case 'node/failed':
    case 'node/cancelled':
      return foldNodeEvent(state, event);
    case 'request/header':
    case 'assistant/message':
    case 'model/retried':
      return foldModelEvent(state, event);
    case 'tool/call':
    case 'tool/result':
      return foldToolEvent(state, event);
    default:
      return foldOtherEvent(state, event);
  }
}

function foldRunEvent(state: SpanState, event: SessionEvent): void {
  const run = spanOf(state, 'run') ?? openSpan(state, event, { key: 'run', parentKey: null, name: 'dagent run', attributes: { 'dagent.run.id': state.runId } });
  switch (event.type) {
    case 'run/created':
      run.attributes['dagent.run.mode'] = event.payload.mode;
      return;
    case 'run/started':
      return startExecution(state, event);
    case 'plan/created':
    case 'plan/amended':
      state.planVersion = event.payload.version;
      run.attributes['dagent.plan.version'] = event.payload.version;
      return;
    case 'run/succeeded':
    case 'run/failed':
    case 'run/cancelled':
    case 'plan/rejected': {
      for (const key of state.openAttempts.values()) closeSpan(state, key, event, event.type === 'run/succeeded' ? null : `run ended: ${event.type}`);
      state.openAttempts.clear();
      const execution = spanOf(state, state.execution) ?? run;
      execution.attributes['dagent.run.status'] = event.type === 'plan/rejected' ? 'rejected' : event.type.slice('run/'.length);
      closeSpan(state, state.execution, event, event.type === 'run/failed' ? event.payload.error : null);
      return;
    }
  }
}

/**
 * `run/started`. A run resumed after it ended (failed, cancelled) gets a `dagent run (resumed)`
 * span under the run's, holding that execution's spans: the run's own span was ended, and exported
 * by the process that ended it, so it is never reopened (a collector would get its id twice). A
 * run resumed after its process died goes on in the span it was in; attempts that process left
 * running ended with it.
 */
function startExecution(state: SpanState, event: SessionEvent): void {
  for (const key of state.openAttempts.values()) closeSpan(state, key, event, 'interrupted: the run started again');
  state.openAttempts.clear();
  if (spanOf(state, state.execution)?.endTime === null) return;
  state.execution = `resume:${event.seq}`;
  openSpan(state, event, { key: state.execution, parentKey: 'run', name: 'dagent run (resumed)', attributes: { 'dagent.run.resumed': true } });
}

function foldNodeEvent(state: SpanState, event: SessionEvent): void {
  const nodeId = event.nodeId;
  if (nodeId === null) return;
  if (event.type === 'node/started') {
    const key = `node:${nodeId}:${event.seq}`;
    openSpan(state, event, {
      key,
      parentKey: state.execution,
      name: `invoke_agent ${nodeId}`,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': nodeId, 'dagent.node.id': nodeId, 'dagent.node.attempt': event.payload.attempt, 'gen_ai.usage.input_tokens': 0, 'gen_ai.usage.output_tokens': 0 },
    });
    state.openAttempts.set(nodeId, key);
    return;
  }
  const key = state.openAttempts.get(nodeId);
  if (key === undefined) return;
  state.openAttempts.delete(nodeId);
  const span = closeSpan(state, key, event, event.type === 'node/failed' ? event.payload.error : event.type === 'node/cancelled' ? 'cancelled' : null);
  if (span !== undefined) span.attributes['dagent.node.outcome'] = event.type.slice('node/'.length);
}

function foldModelEvent(state: SpanState, event: SessionEvent): void {
  const surface = event.nodeId ?? '';
  if (event.type === 'request/header') {
    const key = `model:${event.seq}`;
    openSpan(state, event, {
      key,
      parentKey: parentOf(state, event.nodeId),
      name: `chat ${event.payload.model}`,
      kind: 'client',
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': event.payload.provider,
        'gen_ai.request.model': event.payload.model,
        'dagent.agent': event.payload.agent,
        'dagent.step': event.step,
        ...(event.nodeId === null ? {} : { 'dagent.node.id': event.nodeId }),
      },
    });
    state.openModelCalls.set(surface, key);
    return;
  }
  const key = state.openModelCalls.get(surface);
  const span = key === undefined ? undefined : spanOf(state, key);
  if (span === undefined || key === undefined) return;
  if (event.type === 'model/retried') {
    span.attributes['dagent.model.retries'] = Number(span.attributes['dagent.model.retries'] ?? 0) + 1;
    return;
  }
  if (event.type !== 'assistant/message') return;
  state.openModelCalls.delete(surface);
  const { usage, finishReason, model, costUsd, content } = event.payload;
  Object.assign(span.attributes, {
    'gen_ai.response.model': model,
    'gen_ai.response.finish_reasons': [finishReason],
    ...(usage === undefined ? {} : { 'gen_ai.usage.input_tokens': usage.input, 'gen_ai.usage.output_tokens': usage.output, 'gen_ai.usage.cache_read.input_tokens': usage.cacheHit, 'gen_ai.usage.reasoning.output_tokens': usage.reasoning }),
    ...(costUsd === undefined ? {} : { 'dagent.cost_usd': costUsd }),
    ...(state.includeContent ? { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content }], finish_reason: finishReason }]) } : {}),
  });
  closeSpan(state, key, event, finishReason === 'error' ? 'the model call failed' : null);
  addToAttempt(state, event.nodeId, usage?.input ?? 0, usage?.output ?? 0);
}

function foldToolEvent(state: SpanState, event: SessionEvent): void {
  if (event.type === 'tool/call') {
    openSpan(state, event, {
      key: `tool:${event.payload.toolCallId}`,
      parentKey: parentOf(state, event.nodeId),
      name: `execute_tool ${event.payload.name}`,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': event.payload.name,
        'gen_ai.tool.call.id': event.payload.toolCallId,
        ...(event.nodeId === null ? {} : { 'dagent.node.id': event.nodeId }),
        ...(state.includeContent ? { 'gen_ai.tool.call.arguments': JSON.stringify(event.payload.args ?? null) } : {}),
      },
    });
    return;
  }
  if (event.type !== 'tool/result') return;
  const key = `tool:${event.payload.toolCallId}`;
  if (spanOf(state, key) === undefined) {
    // A command node runs its command without a model, so without a call: the result says how long it took.
    const started = new Date(Date.parse(event.createdAt) - (event.payload.meta.durationMs ?? 0)).toISOString();
    openSpan(state, { ...event, createdAt: started }, {
      key,
      parentKey: parentOf(state, event.nodeId),
      name: `execute_tool ${event.payload.name}`,
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': event.payload.name, 'gen_ai.tool.call.id': event.payload.toolCallId, ...(event.nodeId === null ? {} : { 'dagent.node.id': event.nodeId }) },
    });
  }
  const span = closeSpan(state, key, event, event.payload.isError ? `tool error (${event.payload.meta.outcome})` : null);
  if (span === undefined) return;
  span.attributes['dagent.tool.outcome'] = event.payload.meta.outcome;
  if (state.includeContent) span.attributes['gen_ai.tool.call.result'] = event.payload.content;
}

function foldOtherEvent(state: SpanState, event: SessionEvent): void {
  switch (event.type) {
    case 'compaction/start':
      openSpan(state, event, {
        key: `compaction:${event.payload.compactionId}`,
        parentKey: parentOf(state, event.nodeId),
        name: 'compaction',
        attributes: { 'dagent.compaction.id': event.payload.compactionId, 'dagent.compaction.trigger': event.payload.trigger, 'dagent.compaction.tokens_before': event.payload.tokensBefore, ...(event.nodeId === null ? {} : { 'dagent.node.id': event.nodeId }) },
      });
      return;
    case 'compaction/summary': {
      const span = spanOf(state, `compaction:${event.payload.compactionId}`);
      if (span !== undefined && event.payload.usage !== undefined) Object.assign(span.attributes, { 'gen_ai.usage.input_tokens': event.payload.usage.input, 'gen_ai.usage.output_tokens': event.payload.usage.output });
      return;
    }
    case 'compaction/end': {
      const span = closeSpan(state, `compaction:${event.payload.compactionId}`, event, event.payload.outcome === 'failed' ? (event.payload.error ?? 'compaction failed') : null);
      if (span !== undefined) Object.assign(span.attributes, { 'dagent.compaction.outcome': event.payload.outcome, ...(event.payload.tokensAfter === undefined ? {} : { 'dagent.compaction.tokens_after': event.payload.tokensAfter }) });
      return;
    }
    case 'replan/started':
      state.openReplan = `replan:${event.seq}`;
      openSpan(state, event, {
        key: state.openReplan,
        parentKey: state.execution,
        name: 'replan',
        attributes: { 'dagent.replan.trigger': event.payload.trigger, 'dagent.replan.mode': event.payload.mode, 'dagent.replan.progress': event.payload.progress, ...(event.payload.nodeId === undefined ? {} : { 'dagent.node.id': event.payload.nodeId }) },
      });
      return;
    case 'replan/finished': {
      if (state.openReplan === null) return;
      const payload = event.payload;
      const span = closeSpan(state, state.openReplan, event, payload.outcome === 'failed' ? payload.error : null);
      state.openReplan = null;
      if (span === undefined) return;
      span.attributes['dagent.replan.outcome'] = payload.outcome;
      if (payload.outcome === 'amended') span.attributes['dagent.plan.version'] = payload.version;
      return;
    }
    case 'approval/requested':
      openSpan(state, event, {
        key: `approval:${event.payload.toolCallId}`,
        parentKey: parentOf(state, event.nodeId),
        name: `approval ${event.payload.tool}`,
        attributes: { 'gen_ai.tool.name': event.payload.tool, 'gen_ai.tool.call.id': event.payload.toolCallId, 'dagent.approval.policy': event.payload.policy, ...(event.nodeId === null ? {} : { 'dagent.node.id': event.nodeId }) },
      });
      return;
    case 'approval/granted':
    case 'approval/denied': {
      const span = closeSpan(state, `approval:${event.payload.toolCallId}`, event, null);
      if (span !== undefined) Object.assign(span.attributes, { 'dagent.approval.decision': event.type.slice('approval/'.length), 'dagent.approval.by': event.payload.by });
      return;
    }
    default:
      return;
  }
}

/** A node's open attempt, else an open replan (the planner's calls), else the run's current execution. */
function parentOf(state: SpanState, nodeId: string | null): string {
  const attempt = nodeId === null ? undefined : state.openAttempts.get(nodeId);
  return attempt ?? state.openReplan ?? state.execution;
}

function addToAttempt(state: SpanState, nodeId: string | null, input: number, output: number): void {
  const key = nodeId === null ? undefined : state.openAttempts.get(nodeId);
  const span = key === undefined ? undefined : spanOf(state, key);
  if (span === undefined) return;
  span.attributes['gen_ai.usage.input_tokens'] = Number(span.attributes['gen_ai.usage.input_tokens'] ?? 0) + input;
  span.attributes['gen_ai.usage.output_tokens'] = Number(span.attributes['gen_ai.usage.output_tokens'] ?? 0) + output;
}
