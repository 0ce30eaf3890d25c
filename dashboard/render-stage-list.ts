import { nodeRevertedLabel, type NodeView, type NodeViewStatus, type NodeWorkspaceView, type RunView } from '../engine/index.js';
import { nodeStages, waitsOn } from './node-stages.js';
import type { Span, Style } from './styled-line.js';
import { cell, formatClock } from './text-format.js';

export const NODE_GLYPHS: Readonly<Record<NodeViewStatus, readonly [string, Style]>> = {
  pending: ['·', 'dim'],
  ready: ['○', 'cyan'],
  running: ['▶', 'yellow'],
  succeeded: ['✓', 'green'],
  failed: ['✗', 'red'],
  skipped: ['-', 'dim'],
  cancelled: ['■', 'red'],
};

/** A running node stopped at a step boundary by `dagent pause` (or `p`). */
export const PAUSED_GLYPH: readonly [string, Style] = ['‖', 'yellow'];

/** A row of the stage list: a stage heading or a node. */
export interface StageRow {
  readonly nodeId?: string;
  readonly spans: Span[];
}

/** Runs this big collapse their finished stages to one line each. */
export const COLLAPSE_FROM_NODES = 60;

/**
 * The DAG by stage: a heading per stage, then one row per node with its glyph, id, kind, elapsed
 * time, attempts and what it waits on (or its title). A finished stage without the selection
 * collapses to its heading when the run has 60 or more nodes or the list would not fit.
 */
export function stageRows(view: RunView, selected: string | null, width: number, height: number, now: number): StageRow[] {
  const stages = nodeStages(view);
  const approvals = new Set(view.approvals.map((approval) => approval.nodeId));
  // Nodes in their own workspaces (isolation: worktree) show where each stands.
  const isolated = view.order.some((id) => (view.nodes.get(id)?.workspace ?? null) !== null);
  const layout = rowLayout(width, Math.max(0, ...view.order.map((id) => [...id].length)), isolated);
  const total = view.order.length;
  const fullRows = stages.reduce((sum, stage) => sum + 1 + stage.nodes.length, 0);
  const collapse = total >= COLLAPSE_FROM_NODES || fullRows > height;
  const rows: StageRow[] = [];
  for (const stage of stages) {
    const done = stage.nodes.filter((node) => node.status === 'succeeded' || node.status === 'skipped').length;
    const finished = done === stage.nodes.length;
    const running = stage.nodes.filter((node) => node.status === 'running').length;
    const folded = collapse && finished && !stage.nodes.some((node) => node.id === selected);
    rows.push({
      spans: [
        [`${folded ? '▸' : '▾'} Stage ${stage.index}`, 'bold'],
        [` · ${done}/${stage.nodes.length} done${running > 0 ? ` · ${running} running` : ''}`, finished ? 'green' : 'dim'],
      ],
    });
    if (folded) continue;
    // A row's text is made when it is read: a 200-node run shows some 35 rows a frame.
    for (const node of stage.nodes) rows.push(lazyRow(node.id, () => nodeRow(view, node, { layout, now, asking: approvals.has(node.id), selected: node.id === selected })));
  }
  return rows;
}

function lazyRow(nodeId: string, render: () => Span[]): StageRow {
  let spans: Span[] | undefined;
  return {
    nodeId,
    get spans() {
      return (spans ??= render());
    },
  };
}

function nodeRow(view: RunView, node: NodeView, options: { layout: RowLayout; now: number; asking: boolean; selected: boolean }): Span[] {
  const { layout } = options;
  const [glyph, style] = options.asking ? (['?', 'magenta'] as const) : node.status === 'running' && node.pause === 'paused' ? PAUSED_GLYPH : NODE_GLYPHS[node.status];
  const elapsed = node.startedAt === null ? '' : formatClock((node.finishedAt === null ? options.now : Date.parse(node.finishedAt)) - Date.parse(node.startedAt));
  const waiting = waitsOn(view, node);
  const workspace = layout.workspace === 'none' ? undefined : workspaceCell(node.workspace);
  // A node whose change `dagent revert` undid says so before its title: its ✓ alone reads as in the workspace.
  const reverted = nodeRevertedLabel(view.reverts, node.id);
  const mark = reverted === undefined ? '' : `↶ ${reverted} `;
  const markWidth = Math.min(mark.length, layout.tailWidth);
  const tail: Span =
    layout.workspace === 'in-tail' && node.workspace !== null
      ? [cell(workspace![0], layout.tailWidth - markWidth), workspace![1]]
      : [cell(waiting.length > 0 ? `⟵ ${waiting.join(',')}` : node.title, layout.tailWidth - markWidth), waiting.length > 0 ? 'dim' : 'plain'];
  return [
    [`${glyph} `, style],
    [cell(node.id, layout.idWidth), options.selected ? 'inverse' : 'plain'],
    [' '],
    ...(layout.kind ? [[cell(node.kind, KIND_CELL), 'dim'] as Span] : []),
    [cell(elapsed, 6)],
    [cell(node.attempts > 1 ? `×${node.attempts}` : '', 3), 'yellow'],
    [cell(contextFill(node), 6), node.compactions.length > 0 ? 'yellow' : 'dim'],
    ...(layout.workspace === 'column' ? [[cell(workspace![0], WORKSPACE_CELL), workspace![1]] as Span] : []),
    ...(mark === '' ? [] : [[cell(mark, markWidth), 'magenta'] as Span]),
    tail,
  ];
}

/** How a node row uses the list's width: which cells it shows and how wide the id and the tail (title, or what it waits on) are. */
export interface RowLayout {
  readonly idWidth: number;
  readonly kind: boolean;
  /** `column` of its own; `in-tail`: a started node's workspace state takes the place of its title; `none`: the nodes share the working copy. */
  readonly workspace: 'column' | 'in-tail' | 'none';
  readonly tailWidth: number;
}

/** The glyph, the space after the id, elapsed time, attempts and the context gauge. */
const CORE_CELLS = 2 + 1 + 6 + 3 + 6;
const KIND_CELL = 8;
/** The narrowest tail worth showing: `changed 12`, `⟵ edit-a`. */
const MIN_TAIL = 10;
/** Room a title keeps when long ids take the width a wide list has to spare. */
const TITLE_ROOM = 24;

/**
 * The row cells that fit `width` whole, so no cell is cut to a lone `…`: an id of up to 20
 * characters (longer ones when a wide list has room), the kind unless the tail would be too narrow
 * without it, and in a narrow list a started node's workspace state in place of its title.
 */
export function rowLayout(width: number, longestId: number, isolated: boolean): RowLayout {
  let idWidth = Math.min(20, Math.max(6, longestId));
  const spare = width - CORE_CELLS - idWidth;
  const kind = spare - KIND_CELL >= MIN_TAIL;
  const rest = Math.max(0, spare - (kind ? KIND_CELL : 0));
  const workspace = !isolated ? 'none' : rest >= WORKSPACE_CELL + MIN_TAIL ? 'column' : 'in-tail';
  let tailWidth = rest - (workspace === 'column' ? WORKSPACE_CELL : 0);
  const grow = Math.max(0, Math.min(longestId - idWidth, tailWidth - TITLE_ROOM));
  idWidth += grow;
  tailWidth -= grow;
  return { idWidth, kind, workspace, tailWidth };
}

/** Width of a row's workspace cell. */
const WORKSPACE_CELL = 12;

/** A row's workspace cell: `clean`, `changed 3`, `merged 2`, `conflict 1`, `dropped 2` (files), blank before it starts. */
export function workspaceCell(workspace: NodeWorkspaceView | null): readonly [string, Style] {
  if (workspace === null) return ['', 'dim'];
  switch (workspace.state) {
    case 'clean':
      return ['clean', 'dim'];
    case 'changed':
      return [`changed ${workspace.files}`, 'yellow'];
    case 'merged':
      return [`merged ${workspace.files}`, 'green'];
    case 'conflict':
      return [`conflict ${workspace.files}`, 'red'];
    case 'discarded':
      return [`dropped ${workspace.files}`, 'red'];
  }
}

/** The row's context gauge: fill of the compaction threshold, `⇣` once it compacted. */
function contextFill(node: NodeView): string {
  if (node.compactionThreshold === null || node.compactionThreshold === 0) return node.compactions.length > 0 ? '⇣' : '';
  const percent = Math.min(999, Math.round((node.contextTokens / node.compactionThreshold) * 100));
  return `${percent}%${node.compactions.length > 0 ? '⇣' : ''}`;
}

/** The rows shown in `height` lines: a window that keeps the selected node in view. */
export function visibleRows(rows: readonly StageRow[], selected: string | null, height: number): StageRow[] {
  if (rows.length <= height) return [...rows];
  const at = Math.max(0, rows.findIndex((row) => row.nodeId !== undefined && row.nodeId === selected));
  const start = Math.min(Math.max(0, at - Math.floor(height / 2)), rows.length - height);
  return rows.slice(start, start + height);
}
