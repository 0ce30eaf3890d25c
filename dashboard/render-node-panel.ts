import { PLAN_NODE_KINDS, nodeKind, nodeRevertedLabel, nodeWorkspaceLabel, nodeWorkspaceLine, type NodeView, type PlanNodeKind, type RunView } from '../engine/index.js';
import type { TailLine } from './event-tail-line.js';
import { waitsOn } from './node-stages.js';
import { NODE_GLYPHS, PAUSED_GLYPH, workspaceCell } from './render-stage-list.js';
import type { Span, Style } from './styled-line.js';
import { bar, formatClock, formatTokens, formatUsd } from './text-format.js';

const TAIL_STYLES: Readonly<Record<TailLine['kind'], Style>> = {
  text: 'plain',
  tool: 'cyan',
  result: 'dim',
  error: 'red',
  approval: 'magenta',
  compaction: 'yellow',
  state: 'green',
};

/** The context gauge: the node's last request against its compaction threshold. */
export function contextGauge(node: NodeView, width: number): Span[] {
  if (!callsAModel(node)) return [['context '], ['none: this node runs its command without a model', 'dim']];
  if (node.compactionThreshold === null || node.compactionThreshold === 0) {
    return [['context '], [node.contextTokens === 0 ? 'no model request yet' : `${formatTokens(node.contextTokens)} tokens`, 'dim']];
  }
  const share = node.contextTokens / node.compactionThreshold;
  const label = ` ${formatTokens(node.contextTokens)}/${formatTokens(node.compactionThreshold)} ${Math.round(share * 100)}%`;
  const barWidth = Math.max(6, Math.min(30, width - 10 - label.length));
  return [['context '], [bar(share, barWidth), share >= 0.9 ? 'red' : share >= 0.7 ? 'yellow' : 'green'], [label]];
}

/** Whether the node's kind runs a model (a command node does not); an unknown kind is assumed to. */
function callsAModel(node: NodeView): boolean {
  return !(PLAN_NODE_KINDS as readonly string[]).includes(node.kind) || nodeKind(node.kind as PlanNodeKind).runsModel;
}

/** Each compaction as tokens before → after. */
export function compactionMarkers(node: NodeView): Span[] {
  if (node.compactions.length === 0) return [['compactions: none', 'dim']];
  return [
    ['compactions: '],
    ...node.compactions.map((compaction, index): Span => [
      `${index > 0 ? ', ' : ''}⇣ ${formatTokens(compaction.tokensBefore)} → ${compaction.tokensAfter === undefined ? (compaction.outcome ?? '…') : formatTokens(compaction.tokensAfter)}`,
      compaction.outcome === 'failed' ? 'red' : 'yellow',
    ]),
  ];
}

/** How the node's result came about without paying for it again: reused after a plan edit, or its attempt resumed after a stop. */
function resumeMark(node: NodeView): Span[] {
  if (node.reused) return [[' · reused', 'cyan']];
  return node.resumedFromStep === null ? [] : [[` · resumed from step ${node.resumedFromStep}`, 'cyan']];
}

/** The right-hand panel for the selected node: header, gauge, compactions, usage, then its live events or its details. */
export function nodePanel(view: RunView, node: NodeView | undefined, tail: readonly TailLine[], options: { width: number; height: number; now: number; details: boolean }): Span[][] {
  if (node === undefined) return [[['no node selected', 'dim']]];
  const paused = node.status === 'running' && node.pause !== null;
  const [glyph, style] = paused && node.pause === 'paused' ? PAUSED_GLYPH : NODE_GLYPHS[node.status];
  const elapsed = node.startedAt === null ? '' : ` ${formatClock((node.finishedAt === null ? options.now : Date.parse(node.finishedAt)) - Date.parse(node.startedAt))}`;
  const lines: Span[][] = [
    [[`${glyph} `, style], [node.id, 'bold'], [` · ${node.kind} · `], [`${paused ? (node.pause === 'paused' ? 'paused' : 'pausing') : node.status}${elapsed}`, style], [node.attempts > 0 ? ` · attempt ${node.attempts}` : ''], ...resumeMark(node), ...workspaceSpans(node), ...revertedSpans(view, node)],
    [[node.title]],
    contextGauge(node, options.width),
    compactionMarkers(node),
    [[`tokens ${formatTokens(node.tokens.input)} in · ${formatTokens(node.tokens.output)} out · ${node.modelCalls} calls · ${formatUsd(node.costUsd)}`, 'dim']],
  ];
  if (options.details) return [...lines, ...detailLines(view, node, options.width)].slice(0, options.height);
  lines.push([['── live events ──', 'dim']]);
  const streaming = node.streamingText === null ? [] : streamingLines(node.streamingText, options.width, STREAMING_LINES);
  const room = Math.max(0, options.height - lines.length - streaming.length);
  const shown = tail.slice(Math.max(0, tail.length - room));
  for (const line of shown) lines.push([[`${line.at.slice(11, 19)} `, 'dim'], [line.text, TAIL_STYLES[line.kind]]]);
  if (shown.length === 0 && streaming.length === 0) lines.push([[node.status === 'pending' ? 'waiting to start' : 'no events yet', 'dim']]);
  return [...lines, ...streaming];
}

/** ` · merged 2 files` in the panel's first line, for a node in its own workspace. */
function workspaceSpans(node: NodeView): Span[] {
  if (node.workspace === null) return [];
  return [[' · '], [nodeWorkspaceLabel(node.workspace), workspaceCell(node.workspace)[1]]];
}

/** ` · reverted` in the panel's first line when `dagent revert` undid the node's change (` · partly reverted`: a conflict kept files). */
function revertedSpans(view: RunView, node: NodeView): Span[] {
  const reverted = nodeRevertedLabel(view.reverts, node.id);
  return reverted === undefined ? [] : [[' · '], [reverted, 'magenta']];
}

/** Lines of the panel that show the response streaming now. */
const STREAMING_LINES = 3;

/**
 * The model's text as it streams: its last lines, behind the live events, with a cursor. When the
 * response completes, its `»` line in the live events takes over.
 */
export function streamingLines(text: string, width: number, maxLines: number): Span[][] {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return [];
  const wrapped = wrap(`» ${flat}`, Math.max(10, width - 2));
  return wrapped.slice(-maxLines).map((line, index, shown) => (index === shown.length - 1 ? [[line], [' ▍', 'dim']] : [[line]]));
}

function detailLines(view: RunView, node: NodeView, width: number): Span[][] {
  const neededBy = view.order.filter((id) => view.nodes.get(id)?.dependsOn.includes(node.id));
  const waiting = waitsOn(view, node);
  const lines: Span[][] = [
    [['── details ──', 'dim']],
    [[`depends on: ${node.dependsOn.join(', ') || '-'}`]],
    [[`needed by:  ${neededBy.join(', ') || '-'}`]],
    ...(waiting.length > 0 ? [[[`waits on:   ${waiting.join(', ')}`, 'yellow'] as Span]] : []),
    [[`started:    ${node.startedAt ?? '-'}`]],
    [[`finished:   ${node.finishedAt ?? '-'}`]],
    [[`cache hit:  ${formatTokens(node.tokens.cacheHit)} of ${formatTokens(node.tokens.input)} input tokens`]],
    ...(node.workspace === null ? [] : [[[`workspace:  ${nodeWorkspaceLine(node.workspace)}`, workspaceCell(node.workspace)[1]] as Span]]),
  ];
  const text = node.error ?? node.result;
  if (text !== null) {
    lines.push([[node.error === null ? 'result:' : 'error:', node.error === null ? 'green' : 'red']]);
    for (const line of wrap(text, Math.max(10, width - 2))) lines.push([[`  ${line}`]]);
  }
  return lines;
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/)) {
      if (line.length + word.length + 1 > width && line !== '') {
        out.push(line);
        line = word;
      } else line = line === '' ? word : `${line} ${word}`;
    }
    out.push(line);
  }
  return out;
}
