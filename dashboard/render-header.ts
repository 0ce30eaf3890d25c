import { budgetUse, budgetUseText, isTerminalRunStatus, revertedState, revertedStateLabel, type RunView } from '../engine/index.js';
import type { Span } from './styled-line.js';
import { bar, formatClock, formatTokens, formatUsd } from './text-format.js';
import { estimateTimeLeft } from './time-left.js';

const SETTLED = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

export interface RunProgress {
  readonly done: number;
  readonly total: number;
  readonly elapsedMs: number;
  /** `estimateTimeLeft`; undefined while there is nothing to go by and once the run has ended. */
  readonly leftMs: number | undefined;
}

/**
 * Nodes settled of total, time since the run started, and time left: the critical path of the
 * nodes not yet settled, at this run's usual duration for each kind (`estimateTimeLeft`).
 */
export function runProgress(view: RunView, now: number): RunProgress {
  const nodes = view.order.map((id) => view.nodes.get(id)!);
  const done = nodes.filter((node) => SETTLED.has(node.status)).length;
  const total = nodes.length;
  const start = view.startedAt === null ? now : Date.parse(view.startedAt);
  const end = view.finishedAt !== null && isTerminalRunStatus(view.status) ? Date.parse(view.finishedAt) : now;
  const elapsedMs = Math.max(0, end - start);
  const ended = isTerminalRunStatus(view.status);
  const leftMs = !ended && done < total ? estimateTimeLeft(view, now) : undefined;
  return { done, total, elapsedMs, leftMs };
}

const STATUS_STYLE = { succeeded: 'green', failed: 'red', cancelled: 'red', running: 'yellow' } as const;

/** Title, progress bar and totals: the first three lines of the screen. */
export function renderHeader(view: RunView, now: number, width: number): Span[][] {
  const progress = runProgress(view, now);
  const statusStyle = STATUS_STYLE[view.status as keyof typeof STATUS_STYLE] ?? 'cyan';
  const title: Span[] = [
    ['dagent ', 'bold'],
    [view.runId, 'bold'],
    [' · '],
    [view.status.replace('_', ' '), statusStyle],
    ...revertedSpans(view),
    [view.planVersion === null ? '' : ` · plan v${view.planVersion}`],
    [' · ', 'dim'],
    [view.task, 'dim'],
  ];
  const share = progress.total === 0 ? 0 : progress.done / progress.total;
  const counts = ` ${progress.done}/${progress.total} nodes · ${formatClock(progress.elapsedMs)} elapsed${progress.leftMs === undefined ? '' : ` · ~${formatClock(progress.leftMs)} left`}`;
  const barWidth = Math.max(10, Math.min(40, width - counts.length - 2));
  const progressLine: Span[] = [[bar(share, barWidth), view.status === 'failed' ? 'red' : 'green'], [counts]];
  const totals = view.totals;
  const cacheShare = totals.input === 0 ? 0 : totals.cacheHit / totals.input;
  const totalsLine: Span[] = [
    ['tokens '],
    [`${formatTokens(totals.input)} in`, 'bold'],
    [` (${Math.round(cacheShare * 100)}% cache hit) · `],
    [`${formatTokens(totals.output)} out`, 'bold'],
    [` · ${totals.modelCalls} model calls · ${formatUsd(totals.costUsd)}${budgetText(view)} · `],
    [`${view.replans.length} replan${view.replans.length === 1 ? '' : 's'}`, view.replans.length > 0 ? 'magenta' : 'plain'],
    ...(view.saved.modelCalls > 0 ? ([[` · saved ${formatTokens(view.saved.tokens.input + view.saved.tokens.output)} tokens ${formatUsd(view.saved.costUsd)}`, 'green']] as Span[]) : []),
  ];
  return [title, progressLine, totalsLine];
}

/** ` · reverted`, ` · 1 node reverted` after the status, as `status` says it: the run's changes are not all in the workspace. */
function revertedSpans(view: RunView): Span[] {
  const state = revertedState(view.reverts);
  return state === undefined ? [] : [[' · '], [revertedStateLabel(state), 'magenta']];
}

/** ` · budget $0.0412 of $0.0500 (82%) · 17676 of 20000 tokens (88%)`: the spend against the run's caps, as `status` says it, when it has them. */
function budgetText(view: RunView): string {
  const use = budgetUse(view);
  return use === undefined ? '' : ` · budget ${budgetUseText(use)}`;
}
