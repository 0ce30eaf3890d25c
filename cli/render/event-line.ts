import { shortCommit, toolResultGist, visibleJson, visibleText } from '../../engine/read-face.js';
import type { SessionEvent } from '../../engine/index.js';
import { foldLines } from './one-line.js';

const MAX_SUMMARY = 120;

/** One line per event for `dagent log`: seq, time, node, type, and a short summary of the payload. */
export function formatEventLine(event: SessionEvent): string {
  const time = event.createdAt.slice(11, 23);
  const node = event.nodeId ?? '-';
  return `${String(event.seq).padStart(5)}  ${time}  ${visibleText(node).padEnd(14)} ${event.type.padEnd(18)} ${summarizeEvent(event)}`.trimEnd();
}

/** The payload in one line, control characters and terminal escapes shown as escapes. */
export function summarizeEvent(event: SessionEvent): string {
  const text = visibleText(foldLines(summary(event)));
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 1)}…` : text;
}

function summary(event: SessionEvent): string {
  switch (event.type) {
    case 'user/message':
      return `[${event.payload.source}] ${event.payload.content}`;
    case 'assistant/message': {
      const calls = event.payload.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(' ');
      const usage = event.payload.usage === undefined ? '' : ` · ${event.payload.usage.input}→${event.payload.usage.output} tok`;
      return `${event.payload.content}${calls ? ` ${calls}` : ''}${usage}`;
    }
    case 'text/streamed':
      return event.payload.text;
    case 'tool/call':
      return `${event.payload.name} ${JSON.stringify(event.payload.args)}`;
    case 'tool/result':
      return `${event.payload.name} ${event.payload.meta.outcome}${event.payload.meta.truncated ? ' (truncated)' : ''}: ${toolResultGist(event.payload.content)}`;
    case 'request/header':
      return `${event.payload.provider}:${event.payload.model} system ${event.payload.systemHash} tools ${event.payload.toolNames.length}`;
    case 'request/context':
      return `${event.payload.messageSeqs.length} messages ≈ ${event.payload.estimatedTokens} tokens`;
    case 'prompt/recorded':
      return `system ${event.payload.systemHash} (${event.payload.system.length} chars) · ${event.payload.tools.length} tools`;
    case 'node/failed':
    case 'run/failed':
      return event.payload.error;
    case 'node/succeeded':
      return event.payload.result;
    case 'model/switched':
      return `${event.payload.from} → ${event.payload.to} (${event.payload.reason}): ${event.payload.error}`;
    case 'compaction/start':
      return `${event.payload.compactionId} ${event.payload.trigger} seqs ${event.payload.range.start}-${event.payload.range.end} · ${event.payload.tokensBefore} tokens`;
    case 'compaction/end':
      return `${event.payload.compactionId} ${event.payload.outcome}${event.payload.tokensAfter === undefined ? '' : ` → ${event.payload.tokensAfter} tokens`}`;
    case 'revert/finished': {
      const { scope, node, reverted, unchanged, conflicts, forced } = event.payload;
      const unrestorable = event.payload.unrestorable ?? [];
      const edited = conflicts.filter((path) => !unrestorable.includes(path));
      const what = scope === 'run' ? "the run's changes" : `${node ?? '?'}'s change`;
      const parts = [`${what} reverted${forced ? ' (forced)' : ''}: ${reverted.length === 0 ? 'no file written' : reverted.join(', ')}`];
      if (unchanged.length > 0) parts.push(`already as before: ${unchanged.join(', ')}`);
      if (edited.length > 0) parts.push(`conflict, left as edited: ${edited.join(', ')}`);
      if (unrestorable.length > 0) parts.push(`cannot be put back, left as is: ${unrestorable.join(', ')}`);
      return parts.join(' · ');
    }
    case 'node/merged': {
      const { files, commit, branch, keptYours } = event.payload;
      return `commit ${shortCommit(commit)} on ${branch}: ${files.length} file${files.length === 1 ? '' : 's'} (${files.join(', ')})${keptYours.length === 0 ? '' : ` · kept your edits of ${keptYours.join(', ')}`}`;
    }
    case 'node/conflicted':
      return `not merged onto ${event.payload.branch}: ${event.payload.files.map((file) => (file.hunks.length === 0 ? file.path : `${file.path}:${file.hunks.map((hunk) => hunk.line).join(',')}`)).join(' ')} (onConflict: ${event.payload.onConflict})`;
    case 'workspace/discarded':
      return `${event.payload.files.length} file${event.payload.files.length === 1 ? '' : 's'} dropped (${event.payload.reason}): ${event.payload.files.join(', ')}`;
    case 'hook/ran': {
      const { payload } = event;
      const exit = payload.exitCode === null || payload.outcome === 'ok' ? '' : ` (exit ${payload.exitCode})`;
      const said = (payload.outcome === 'ok' ? payload.stdout : payload.stderr).trim() || (payload.error ?? '');
      // Where it ran: a sandboxed hook writes there only (docs/hooks.md), so a file it wrote elsewhere is not lost unseen.
      const where = payload.folder === undefined ? '' : ` in ${payload.folder}${payload.sandbox === 'none' ? '' : ` (${payload.sandbox}: writes only there)`}`;
      return `${payload.event}${payload.tool === undefined ? '' : ` ${payload.tool}`} ${payload.outcome}${exit}${where}${said === '' ? '' : `: ${said}`} · $ ${payload.command}`;
    }
    default:
      return JSON.stringify(event.payload);
  }
}

/** The stable JSON line of `dagent log --json` (C1 controls and direction overrides as `\\u` escapes). */
export function eventJson(event: SessionEvent): string {
  return visibleJson(JSON.stringify({
    seq: event.seq,
    runId: event.runId,
    nodeId: event.nodeId,
    turn: event.turn,
    step: event.step,
    type: event.type,
    payload: event.payload,
    createdAt: event.createdAt,
    ...(event.surfaceOp === undefined ? {} : { surfaceOp: event.surfaceOp }),
    ...(event.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: event.sourceEventSeqs }),
  }));
}
