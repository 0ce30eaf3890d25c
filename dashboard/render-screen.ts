import { isTerminalRunStatus, pausedBudgetWayOn, planChangeSummary } from '../engine/index.js';
import { KEY_HELP, keyHelpLines } from './dashboard-keys.js';
import type { DashboardState } from './dashboard-state.js';
import { renderHeader } from './render-header.js';
import { nodePanel } from './render-node-panel.js';
import { stageRows, visibleRows } from './render-stage-list.js';
import { plainText, styledLine, type Span } from './styled-line.js';
import { formatClock } from './text-format.js';

export interface ScreenSize {
  readonly width: number;
  readonly height: number;
}

export interface RenderedScreen {
  /** One string per screen line, with blessed tags. */
  readonly lines: string[];
  /** Node ids in the order the stage list shows them (what ↑/↓ move through). */
  readonly rowOrder: string[];
}

const HELP_LINES = [
  'Keys',
  ...keyHelpLines(),
  '',
  'Glyphs  · pending  ○ ready  ▶ running  ✓ succeeded  ✗ failed  - skipped  ■ cancelled  ? asks approval',
  'Context: a node\'s last request as a share of its compaction threshold (the % column, and the',
  'gauge of the selected node); ⇣ marks a node that compacted, with tokens before → after.',
];

/**
 * The whole screen as lines: header, the DAG by stage beside the selected node's panel, then
 * replans, pending approvals, the run's state (finished, orphaned) and the keys. Pure: the blessed
 * screen only puts these lines on the terminal.
 */
export function renderScreen(state: DashboardState, size: ScreenSize, screenOptions: { color: boolean; now: number }): RenderedScreen {
  const { width, height } = size;
  const { view } = state;
  // An orphaned run's clock stopped with its last event: no time keeps growing on screen.
  const options = state.orphan !== null && view.lastEventAt !== null ? { ...screenOptions, now: Date.parse(view.lastEventAt) } : screenOptions;
  const line = (spans: readonly Span[], lineWidth = width): string => styledLine(spans, lineWidth, options.color);
  const header = renderHeader(view, options.now, width).map((spans) => line(spans));
  const bottom = bottomLines(state, width).map((spans) => line(spans));
  const footer = line([[state.notice ?? KEY_HELP, state.notice === null ? 'dim' : 'bold']]);
  const bodyHeight = Math.max(1, height - header.length - 1 - bottom.length - 1);
  const rule = line([['─'.repeat(width), 'dim']]);

  if (state.panel === 'help') {
    const body = HELP_LINES.slice(0, bodyHeight).map((text) => line([[text]]));
    return { lines: pad([...header, rule, ...body], height - bottom.length - 1).concat(bottom, footer), rowOrder: [] };
  }

  // Narrow terminals give the node list the room its columns need; the panel takes the rest.
  const leftWidth = width >= 100 ? Math.floor(width * 0.5) : Math.max(30, width - 32);
  const rightWidth = Math.max(10, width - leftWidth - 1);
  const rows = stageRows(view, state.selected, leftWidth, bodyHeight, options.now);
  const rowOrder = rows.flatMap((row) => (row.nodeId === undefined ? [] : [row.nodeId]));
  const shown = visibleRows(rows, state.selected, bodyHeight);
  const node = state.selected === null ? undefined : view.nodes.get(state.selected);
  const panel = nodePanel(view, node, state.selected === null ? [] : state.tails.get(state.selected) ?? [], {
    width: rightWidth,
    height: bodyHeight,
    now: options.now,
    details: state.panel === 'details',
  });
  const body: string[] = [];
  for (let index = 0; index < bodyHeight; index += 1) {
    const left = shown[index]?.spans ?? [];
    const leftText = line(left, leftWidth);
    const visible = [...plainText(leftText)].length;
    body.push(`${leftText}${' '.repeat(Math.max(0, leftWidth - Math.min(visible, leftWidth)))}${line([['│', 'dim']], 1)}${line(panel[index] ?? [], rightWidth)}`);
  }
  return { lines: [...header, rule, ...body, ...bottom, footer], rowOrder };
}

/** Replans (newest last, with what changed), pending approvals, and a line on how the run stands. */
function bottomLines(state: DashboardState, width: number): Span[][] {
  const { view } = state;
  const lines: Span[][] = [];
  if (state.composing !== null) lines.push([['✎ ', 'cyan'], [`to ${state.composing.nodeId}: `, 'bold'], [`${state.composing.text}▏`], ['  enter sends · esc drops', 'dim']]);
  for (const replan of view.replans.slice(-2)) {
    const change = replan.change === undefined ? '' : `: ${planChangeSummary(replan.change)}`;
    const cause = replan.nodeId === undefined ? replan.trigger : `${replan.trigger} in ${replan.nodeId}`;
    const outcome = replan.outcome === undefined ? 'planning…' : replan.version === undefined ? replan.outcome : `plan v${replan.version}`;
    lines.push([
      ['⟳ replan → ', 'magenta'],
      [`${outcome}${change}`, 'magenta'],
      [` (${replan.mode} at ${Math.round(replan.progress * 100)}%, ${cause})`],
    ]);
  }
  const approvals = view.approvals.slice(0, 3);
  for (const approval of approvals) lines.push(...approvalLines(`${approval.nodeId ?? 'run'} asks: `, approval.summary, width));
  if (view.approvals.length > approvals.length) lines.push([[`  … ${view.approvals.length - approvals.length} more approvals waiting`, 'magenta']]);
  if (state.orphan !== null) {
    const next = view.status === 'planning' ? `it has no plan; \`dagent cancel ${view.runId}\` closes it` : `\`dagent resume ${view.runId}\` finishes it, \`dagent cancel ${view.runId}\` closes it`;
    lines.push([['! ', 'red'], [`the process that ran this run (pid ${state.orphan.pid}) is gone; ${next}`, 'red']]);
  } else if (isTerminalRunStatus(view.status)) {
    const took = view.startedAt === null || view.finishedAt === null ? '' : ` in ${formatClock(Date.parse(view.finishedAt) - Date.parse(view.startedAt))}`;
    // The node list's glyphs: ✓ succeeded, ■ cancelled, ✗ failed or rejected.
    const glyph = view.status === 'succeeded' ? '✓' : view.status === 'cancelled' ? '■' : '✗';
    lines.push([[`${glyph} run ${view.status}${took}${view.error === null ? '' : `: ${view.error}`} · q to exit`, view.status === 'succeeded' ? 'green' : 'red']]);
  } else if (view.status === 'paused' && view.pausedReason !== null) {
    lines.push([[`‖ paused: ${view.pausedReason} · ${pausedBudgetWayOn(view)}`, 'yellow']]);
  } else if (view.status === 'awaiting_approval' && view.pausedReason !== null) {
    lines.push([[`‖ paused: ${view.pausedReason} · \`dagent show ${view.runId}\`, then approve and resume`, 'yellow']]);
  } else if (view.cancelRequested) {
    lines.push([['■ cancel requested; the run is stopping', 'yellow']]);
  } else if (state.confirmingCancel) {
    lines.push([['press c again to cancel the run (it stays resumable), any other key to keep it going', 'yellow']]);
  }
  return lines;
}

/** A pending approval's lines at most; a longer summary ends in `…`. */
const APPROVAL_MAX_LINES = 4;
const APPROVAL_KEYS = '  a approve · d deny';

/**
 * A pending approval wrapped to the screen's width, so what `a` approves can be read whole on a
 * narrow terminal (up to four lines), with the keys after it when they fit.
 */
function approvalLines(who: string, summary: string, width: number): Span[][] {
  const room = Math.max(10, width - 2);
  const chars = [...`${who}${summary.replace(/\s+/g, ' ')}`];
  const chunks: string[] = [];
  for (let at = 0; at < chars.length && chunks.length < APPROVAL_MAX_LINES; at += room) chunks.push(chars.slice(at, at + room).join(''));
  if (chunks.length * room < chars.length) chunks[chunks.length - 1] = `${[...chunks.at(-1)!].slice(0, room - 1).join('')}…`;
  const lines: Span[][] = chunks.map((chunk, index) => (index === 0 ? [['? ', 'magenta'], [chunk.slice(0, who.length), 'bold'], [chunk.slice(who.length)]] : [['  '], [chunk]]));
  if ([...chunks.at(-1)!].length + 2 + APPROVAL_KEYS.length <= width) lines.at(-1)!.push([APPROVAL_KEYS, 'magenta']);
  return lines;
}

function pad(lines: string[], height: number): string[] {
  return lines.length >= height ? lines.slice(0, height) : [...lines, ...Array.from({ length: height - lines.length }, () => '')];
}
