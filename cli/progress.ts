import type { SessionEvent } from '../engine/index.js';
import { writeLine, type CliIo } from './cli-io.js';
import { eventJson, formatDuration, formatTokens, formatUsd } from './render/index.js';

/**
 * Plain progress lines for a run without a dashboard (no TTY, CI, `--no-dashboard`): one line
 * per node state change, replan and approval. With `--json` every event goes out as a JSON line,
 * the same shape as `dagent log --json`.
 */
export function createProgressPrinter(io: CliIo, options: { json: boolean }): (events: readonly SessionEvent[]) => void {
  const started = new Map<string, number>();
  const tokens = new Map<string, number>();
  const cost = new Map<string, number>();
  return (events) => {
    for (const event of events) {
      if (options.json) {
        writeLine(io.stdout, eventJson(event));
        continue;
      }
      const line = progressLine(event, started, tokens, cost);
      if (line !== undefined) writeLine(io.stdout, `${event.createdAt.slice(11, 19)}  ${line}`);
    }
  };
}

function progressLine(event: SessionEvent, started: Map<string, number>, tokens: Map<string, number>, cost: Map<string, number>): string | undefined {
  const node = event.nodeId ?? '';
  switch (event.type) {
    case 'run/started':
      return `run ${event.runId} started (plan v${event.payload.planVersion ?? '?'})`;
    case 'node/started':
      started.set(node, Date.parse(event.createdAt));
      return `▶ ${node} started${event.payload.attempt > 1 ? ` (attempt ${event.payload.attempt})` : ''}`;
    case 'assistant/message':
      if (event.payload.usage !== undefined) tokens.set(node, (tokens.get(node) ?? 0) + event.payload.usage.input + event.payload.usage.output);
      cost.set(node, (cost.get(node) ?? 0) + (event.payload.costUsd ?? 0));
      return undefined;
    case 'node/succeeded': {
      const took = Date.parse(event.createdAt) - (started.get(node) ?? Date.parse(event.createdAt));
      const files = event.payload.filesChanged?.length ? ` · ${event.payload.filesChanged.join(', ')}` : '';
      return `✓ ${node} ${formatDuration(took)} · ${formatTokens(tokens.get(node) ?? 0)} tokens · ${formatUsd(cost.get(node) ?? 0)}${files}`;
    }
    case 'node/failed':
      return `✗ ${node} failed: ${firstLine(event.payload.error)}`;
    case 'node/retried':
      return `↻ ${node} retrying in ${formatDuration(event.payload.delayMs)}: ${firstLine(event.payload.error)}`;
    case 'node/skipped':
      return `- ${node} skipped: ${event.payload.reason}`;
    case 'node/cancelled':
      return `■ ${node} cancelled`;
    case 'writes/exceeded':
      return `⚠ ${node} changed files outside its declared writes: ${event.payload.paths.join(', ')} (recorded: \`dagent diff\` shows them, \`dagent revert --node ${node}\` undoes them)`;
    case 'work/reported':
      return `! ${node} reported missed work: ${event.payload.title} (${event.payload.files.join(', ')})`;
    case 'replan/started':
      return `⟳ replan (${event.payload.mode}) after ${event.payload.trigger} · progress ${Math.round(event.payload.progress * 100)}%`;
    case 'replan/finished':
      return event.payload.outcome === 'amended'
        ? `⟳ replan amended → plan v${event.payload.version}`
        : `⟳ replan ${event.payload.outcome}: ${event.payload.outcome === 'gave-up' ? event.payload.reason : event.payload.error}`;
    case 'plan/amended':
      return `  plan v${event.payload.version}: ${event.payload.reason}`;
    case 'approval/denied':
      return `⊘ ${node} ${event.payload.toolCallId}: denied (${event.payload.reason ?? event.payload.by})`;
    case 'compaction/end':
      return `⇣ ${node} compaction ${event.payload.outcome}${event.payload.tokensAfter === undefined ? '' : ` → ${formatTokens(event.payload.tokensAfter)} tokens`}`;
    case 'run/succeeded':
      return `run succeeded`;
    case 'run/failed':
      return `run failed: ${firstLine(event.payload.error)}`;
    case 'run/cancelled':
      return `run cancelled: ${event.payload.reason ?? ''}`;
    case 'run/paused':
      return `run paused: ${event.payload.reason}`;
    default:
      return undefined;
  }
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
