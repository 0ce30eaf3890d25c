import { visibleText } from '../../engine/read-face.js';
import type { InspectedHook, InspectedMessage, ReconstructedRequest } from '../../engine/index.js';

/**
 * `dagent inspect` as text: the header (and the node's `workspace` line, naming its commit), the exact system prompt, the tools and every message, with
 * control characters and terminal escapes in them made visible (line feeds and tabs kept).
 */
export function renderRequestText(request: ReconstructedRequest, workspace?: string): string {
  const header = request.header;
  const lines = [
    `run ${request.runId} · node ${request.nodeId ?? '-'} · turn ${request.turn} · step ${request.step} · request seq ${request.seq}`,
    `${header.provider}:${header.model} · agent ${header.agent} · parameters ${JSON.stringify(header.parameters)}`,
    `system ${header.systemHash} · tools ${header.toolsHash} · ≈ ${request.estimatedTokens} tokens · runtime context ${header.contextChanged ? 'changed this step' : 'unchanged'}`,
    // The node's workspace (isolation: worktree) and its commit on the run branch.
    ...(workspace === undefined ? [] : [`workspace: ${workspace}`]),
    ...(request.resumed === undefined
      ? []
      : [`attempt ${request.resumed.attempt} resumed from step ${request.resumed.fromStep} (seq ${request.resumed.seq}): the messages of steps 1–${request.resumed.fromStep} come from the log, their model calls were not made again`]),
    '',
    '── system ──',
    request.system,
    '',
    `── tools (${request.tools.length}) ──`,
    ...request.tools.map((tool) => `${tool.name}: ${firstLine(tool.description)}\n  ${JSON.stringify(tool.parameters)}`),
    '',
    `── messages (${request.messages.length}) ──`,
    ...request.messages.map(renderMessage),
    ...(request.hooks.length === 0 ? [] : ['', `── hooks (${request.hooks.length}) ──`, ...request.hooks.map(renderHook)]),
  ];
  return visibleText(lines.join('\n'), { multiline: true });
}

/** `[seq 12] step 1 · PreToolUse run_command [call-1] blocked (exit 2) · bubblewrap · 14 ms`, the command, then what it printed. */
function renderHook(hook: InspectedHook): string {
  const subject = hook.tool === undefined ? '' : ` ${hook.tool}${hook.toolCallId === undefined ? '' : ` [${hook.toolCallId}]`}`;
  const lines = [`[seq ${hook.seq}] step ${hook.step} · ${hook.event}${subject} ${hookEnd(hook)} · ${hook.sandbox} · ${hook.durationMs} ms`, `  $ ${hook.command}`];
  if (hook.error !== undefined) lines.push(`  error: ${hook.error}`);
  if (hook.stdout.trim() !== '') lines.push(`  stdout: ${hook.stdout.trim()}`);
  if (hook.stderr.trim() !== '') lines.push(`  stderr: ${hook.stderr.trim()}`);
  return `${lines.join('\n')}\n`;
}

/** `ok`, `blocked (exit 2)`, `error (exit 1)`, `timeout`, with what the run did with it when it did something. */
export function hookEnd(hook: Pick<InspectedHook, 'outcome' | 'exitCode' | 'effect'>): string {
  const exit = hook.exitCode === null || hook.outcome === 'ok' ? '' : ` (exit ${hook.exitCode})`;
  const effect = hook.effect === 'context' ? ' → added to the result' : hook.effect === 'ignored' ? ' (nothing to block)' : '';
  return `${hook.outcome}${exit}${effect}`;
}

function renderMessage(message: InspectedMessage): string {
  switch (message.role) {
    case 'user':
      return `[seq ${message.seq}] user (${message.source})\n${message.content}\n`;
    case 'assistant': {
      const parts = [`[seq ${message.seq}] assistant`];
      if (message.reasoning) parts.push(`(reasoning) ${message.reasoning}`);
      if (message.content) parts.push(message.content);
      for (const call of message.toolCalls) parts.push(`→ ${call.name} ${call.argsText ?? JSON.stringify(call.args)}  [${call.id}]`);
      return `${parts.join('\n')}\n`;
    }
    case 'tool':
      return `[seq ${message.seq}] tool ${message.toolName} [${message.toolCallId}]${message.isError ? ' (error)' : ''}\n${metaLine(message.meta)}${message.content}\n`;
  }
}

/**
 * The uniform meta of a tool result, one line under its header (not part of what the model saw):
 * `meta: ok · source src/a.ts · text/plain · provider dagent · 1234 chars · truncated`.
 */
function metaLine(meta: InspectedMessage['meta']): string {
  if (meta === undefined) return '';
  const parts = [meta.outcome, `source ${meta.source}`, meta.contentType, `provider ${meta.provider}`, `${meta.originalLength} chars`];
  if (meta.truncated) parts.push('truncated');
  return `  meta: ${parts.join(' · ')}\n`;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
