import { toolResultGist, type SessionEvent } from '../engine/index.js';
import { formatTokens } from './text-format.js';

/** One line of a node's live events, as the screen lists them. */
export interface TailLine {
  readonly seq: number;
  readonly at: string;
  readonly kind: 'text' | 'tool' | 'result' | 'error' | 'approval' | 'compaction' | 'state';
  readonly text: string;
}

/**
 * The lines one event adds to its node's live events: the assistant's text, each tool call with a
 * short summary of its arguments, each result's first line, approvals, compactions (tokens
 * before → after) and state changes. Other events add none.
 */
export function tailLines(event: SessionEvent): TailLine[] {
  const line = (kind: TailLine['kind'], text: string): TailLine => ({ seq: event.seq, at: event.createdAt, kind, text });
  switch (event.type) {
    case 'assistant/message': {
      const lines: TailLine[] = [];
      const text = event.payload.content.trim();
      if (text !== '') lines.push(line('text', `» ${firstLine(text)}`));
      for (const call of event.payload.toolCalls) lines.push(line('tool', `→ ${call.name} ${argsSummary(call.args)}`));
      return lines;
    }
    case 'tool/result':
      return [line(event.payload.isError ? 'error' : 'result', `← ${event.payload.name} ${event.payload.isError ? 'error' : 'ok'}: ${firstLine(toolResultGist(event.payload.content))}`)];
    case 'approval/requested':
      return [line('approval', `? approval asked: ${typeof event.payload.summary === 'string' ? event.payload.summary : event.payload.tool}`)];
    case 'approval/granted':
      return [line('approval', `✓ approved by ${event.payload.by}`)];
    case 'approval/denied':
      return [line('approval', `⊘ denied by ${event.payload.by}${event.payload.reason === undefined ? '' : `: ${event.payload.reason}`}`)];
    case 'compaction/start':
      return [line('compaction', `⇣ compaction (${event.payload.trigger}) at ${formatTokens(event.payload.tokensBefore)} tokens`)];
    case 'compaction/end':
      return [line('compaction', `⇣ compaction ${event.payload.outcome}${event.payload.tokensAfter === undefined ? '' : ` → ${formatTokens(event.payload.tokensAfter)} tokens`}`)];
    case 'node/started':
      return [line('state', `▶ started (attempt ${event.payload.attempt})`)];
    case 'node/succeeded':
      return [line('state', `✓ succeeded: ${firstLine(event.payload.result)}`)];
    case 'node/failed':
      return [line('error', `✗ failed: ${firstLine(event.payload.error)}`)];
    case 'node/retried':
      return [line('error', `↻ retry in ${Math.round(event.payload.delayMs / 100) / 10}s: ${firstLine(event.payload.error)}`)];
    case 'node/skipped':
      return [line('state', `- skipped: ${event.payload.reason}`)];
    case 'node/cancelled':
      return [line('state', '■ cancelled')];
    case 'node/reset':
      return [line('state', `↺ runs again: ${event.payload.reason}`)];
    case 'node/reused':
      return [line('state', '♻ reused: nothing it depends on changed')];
    case 'reuse/missed':
      return [line('state', `↺ not reused: ${event.payload.reason}`)];
    case 'step/resumed':
      return [line('state', `⏵ resumed after step ${event.payload.fromStep} (${event.payload.modelCalls} model calls kept)`)];
    case 'model/retried':
      return [line('error', `↻ model call retried (attempt ${event.payload.attempt}): ${firstLine(event.payload.error)}`)];
    case 'model/switched':
      return [line('error', `⇄ model ${event.payload.from} gave way to ${event.payload.to} (${event.payload.reason}): ${firstLine(event.payload.error)}`)];
    case 'work/reported':
      return [line('approval', `! reported missed work: ${event.payload.title} (${event.payload.files.join(', ')})`)];
    case 'hook/ran': {
      const { payload } = event;
      const exit = payload.exitCode === null || payload.outcome === 'ok' ? '' : ` (exit ${payload.exitCode})`;
      const said = firstLine(payload.outcome === 'ok' ? payload.stdout : payload.stderr) || (payload.error ?? '');
      const kind: TailLine['kind'] = payload.outcome === 'ok' ? 'state' : payload.outcome === 'blocked' ? 'approval' : 'error';
      return [line(kind, `⚑ hook ${payload.event}${payload.tool === undefined ? '' : ` ${payload.tool}`} ${payload.outcome}${exit}${said === '' ? '' : `: ${said}`}`)];
    }
    default:
      return [];
  }
}

/** `src/a.ts`, `npm test`, `"total\\("` — the argument a person recognises a call by. */
export function argsSummary(args: unknown): string {
  if (args === null || typeof args !== 'object') return args === undefined ? '' : String(args);
  const record = args as Record<string, unknown>;
  for (const key of ['command', 'path', 'pattern', 'query', 'url', 'title']) {
    const value = record[key];
    if (typeof value === 'string') return key === 'pattern' ? JSON.stringify(value) : value;
  }
  const json = JSON.stringify(args);
  return json.length > 60 ? `${json.slice(0, 59)}…` : json;
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim();
}
