import { posix } from 'node:path';
import { z } from 'zod';
import type { EventQuery, SessionEvent } from '../engine/index.js';
import { defineTool, loadToolDescription } from './define-tool.js';
import { ToolError } from './tool-errors/index.js';

/** Events one recall shows. */
export const MAX_RECALLED_EVENTS = 50;
/** Characters of one event's content shown. */
export const MAX_RECALLED_EVENT_CHARS = 8_000;

const recallHistoryArgs = z.strictObject({
  seq: z.number().int().min(1).optional().describe('one event by its sequence number'),
  from_seq: z.number().int().min(1).optional().describe('first sequence number of a range'),
  to_seq: z.number().int().min(1).optional().describe('last sequence number of a range'),
  node: z.string().min(1).optional().describe('plan node id (default: this node for turn, step and path filters)'),
  turn: z.number().int().min(0).optional().describe('turn number within the node'),
  step: z.number().int().min(0).optional().describe('step number within the node'),
  tool_call_id: z.string().min(1).optional().describe('a tool call id: the call, its approval and its result'),
  path: z.string().min(1).optional().describe('workspace-relative file path: tool results about that file'),
  compaction_id: z.string().min(1).optional().describe('a compaction id: its events and the range it covers'),
});

export type RecallHistoryArgs = z.output<typeof recallHistoryArgs>;

export const recallHistoryTool = defineTool({
  name: 'recall_history',
  description: loadToolDescription(import.meta.url, 'recall-history.md'),
  args: recallHistoryArgs,
  risk: 'read',
  async execute(args, context) {
    const filters = Object.entries(args).filter(([, value]) => value !== undefined);
    if (filters.length === 0) {
      throw new ToolError('recall_history needs at least one filter: seq, from_seq/to_seq, node, turn, step, tool_call_id, path or compaction_id');
    }
    const from = args.seq ?? args.from_seq;
    const to = args.seq ?? args.to_seq;
    if (from !== undefined && to !== undefined && from > to) throw new ToolError(`from_seq ${from} is after to_seq ${to}`);
    const nodeScoped = args.turn !== undefined || args.step !== undefined || args.path !== undefined;
    const query: EventQuery = {
      ...(args.node !== undefined ? { nodeId: args.node } : nodeScoped && context.nodeId !== null ? { nodeId: context.nodeId } : {}),
      ...(from !== undefined ? { fromSeq: from } : {}),
      ...(to !== undefined ? { toSeq: to } : {}),
    };
    const ownCall = (event: SessionEvent): boolean => 'toolCallId' in event.payload && event.payload.toolCallId === context.toolCallId;
    const matching = (await context.session.log.read(query)).filter((event) => !ownCall(event) && eventFilter(args)(event));
    const shown = matching.slice(0, MAX_RECALLED_EVENTS);
    const lines: string[] = [];
    if (args.compaction_id !== undefined) lines.push(...describeCompaction(args.compaction_id, matching));
    if (shown.length === 0) lines.push(`no events match ${describeFilters(filters)}`);
    for (const event of shown) lines.push(renderEvent(event));
    if (matching.length > shown.length) {
      lines.push(`(${matching.length - shown.length} more events match; the last shown is #${shown.at(-1)!.seq}: use from_seq ${shown.at(-1)!.seq + 1} or narrower filters)`);
    }
    return {
      content: lines.join('\n\n'),
      meta: { events: matching.length, seqs: shown.map((event) => event.seq), truncated: matching.length > shown.length },
    };
  },
});

function eventFilter(args: RecallHistoryArgs): (event: SessionEvent) => boolean {
  const path = args.path === undefined ? undefined : normalizePath(args.path);
  return (event) =>
    (args.turn === undefined || event.turn === args.turn) &&
    (args.step === undefined || event.step === args.step) &&
    (args.tool_call_id === undefined || mentionsToolCall(event, args.tool_call_id)) &&
    (path === undefined || concernsPath(event, path)) &&
    (args.compaction_id === undefined || ('compactionId' in event.payload && event.payload.compactionId === args.compaction_id));
}

function mentionsToolCall(event: SessionEvent, id: string): boolean {
  if (event.type === 'assistant/message') return event.payload.toolCalls.some((call) => call.id === id);
  return 'toolCallId' in event.payload && event.payload.toolCallId === id;
}

function concernsPath(event: SessionEvent, path: string): boolean {
  if (event.type === 'tool/result') {
    const meta = event.payload.meta as { path?: unknown; args?: { path?: unknown } };
    return [meta.path, meta.args?.path].some((candidate) => typeof candidate === 'string' && normalizePath(candidate) === path);
  }
  if (event.type === 'tool/call') {
    const callArgs = event.payload.args as { path?: unknown } | undefined;
    return typeof callArgs?.path === 'string' && normalizePath(callArgs.path) === path;
  }
  return false;
}

function normalizePath(path: string): string {
  const normalized = posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\//, '').replace(/\/$/, '');
  return normalized === '' ? '.' : normalized;
}

function describeCompaction(id: string, events: readonly SessionEvent[]): string[] {
  const start = events.find((event): event is SessionEvent<'compaction/start'> => event.type === 'compaction/start');
  const end = events.find((event): event is SessionEvent<'compaction/end'> => event.type === 'compaction/end');
  if (start === undefined) return [];
  const { range } = start.payload;
  const outcome = end === undefined ? 'not finished' : end.payload.outcome;
  return [`compaction ${id} (${outcome}) covers events #${range.start}–#${range.end}; recall them with from_seq ${range.start} and to_seq ${range.end}`];
}

function describeFilters(filters: readonly (readonly [string, unknown])[]): string {
  return filters.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(', ');
}

/** `#12 node edit-a turn 2 step 3 tool/result` and the event's content, capped. */
export function renderEvent(event: SessionEvent): string {
  const header = `#${event.seq} ${event.nodeId === null ? 'run' : `node ${event.nodeId}`} turn ${event.turn} step ${event.step} ${event.type}`;
  const body = renderPayload(event);
  const capped = body.length > MAX_RECALLED_EVENT_CHARS ? `${body.slice(0, MAX_RECALLED_EVENT_CHARS)}\n[… ${body.length - MAX_RECALLED_EVENT_CHARS} more characters]` : body;
  return capped === '' ? header : `${header}\n${capped}`;
}

function renderPayload(event: SessionEvent): string {
  switch (event.type) {
    case 'user/message':
      return `[${event.payload.source}] ${event.payload.content}`;
    case 'assistant/message': {
      const calls = event.payload.toolCalls.map((call) => `tool call ${call.id}: ${call.name} ${JSON.stringify(call.args)}`);
      return [event.payload.content, ...calls].filter((part) => part !== '').join('\n');
    }
    case 'tool/call':
      return `${event.payload.name} (call ${event.payload.toolCallId}) ${JSON.stringify(event.payload.args)}`;
    case 'tool/result': {
      const meta = event.payload.meta;
      const notes = [`outcome ${meta.outcome}`, meta.truncated ? `truncated from ${meta.originalLength} characters` : undefined].filter((note) => note !== undefined);
      return `${event.payload.name} (call ${event.payload.toolCallId}; ${notes.join('; ')})\n${event.payload.content}`;
    }
    default:
      return JSON.stringify(event.payload);
  }
}
