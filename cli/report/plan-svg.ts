import { formatDuration } from '../render/index.js';
import { htmlText } from './report-text.js';
import type { ReportNode, ReportPlan } from './run-report.js';

const NODE_WIDTH = 190;
const NODE_HEIGHT = 46;
const COLUMN_GAP = 70;
const ROW_GAP = 18;
const MARGIN = 16;
const MAX_LABEL_CHARS = 24;

/** Fill and stroke per node status, readable on a light page. */
const STATUS_COLORS: Readonly<Record<string, { fill: string; stroke: string }>> = {
  succeeded: { fill: '#e6f4ea', stroke: '#2e7d32' },
  failed: { fill: '#fdecea', stroke: '#c62828' },
  running: { fill: '#e8f0fe', stroke: '#1a73e8' },
  cancelled: { fill: '#f1f3f4', stroke: '#5f6368' },
  skipped: { fill: '#f1f3f4', stroke: '#9aa0a6' },
};
const PENDING_COLORS = { fill: '#ffffff', stroke: '#9aa0a6' };

interface Box {
  readonly x: number;
  readonly y: number;
}

/** Where each node's box goes: one column per stage, the stage's nodes stacked in it. */
export function layoutPlan(stages: readonly (readonly string[])[]): { boxes: Map<string, Box>; width: number; height: number } {
  const boxes = new Map<string, Box>();
  stages.forEach((stage, column) => {
    stage.forEach((id, row) => boxes.set(id, { x: MARGIN + column * (NODE_WIDTH + COLUMN_GAP), y: MARGIN + row * (NODE_HEIGHT + ROW_GAP) }));
  });
  const rows = Math.max(1, ...stages.map((stage) => stage.length));
  return {
    boxes,
    width: MARGIN * 2 + Math.max(1, stages.length) * (NODE_WIDTH + COLUMN_GAP) - COLUMN_GAP,
    height: MARGIN * 2 + rows * (NODE_HEIGHT + ROW_GAP) - ROW_GAP,
  };
}

/**
 * The plan's DAG as an inline SVG: stages left to right, each node a box with its id and outcome,
 * an arrow per dependency, the critical path drawn bold. Every piece of text is escaped.
 */
export function renderPlanSvg(plan: ReportPlan, nodes: readonly ReportNode[]): string {
  const { boxes, width, height } = layoutPlan(plan.stages);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const critical = new Set(plan.criticalPath.slice(1).map((id, index) => `${plan.criticalPath[index]}\u0000${id}`));
  const edges = plan.edges.flatMap((edge) => {
    const from = boxes.get(edge.from);
    const to = boxes.get(edge.to);
    if (from === undefined || to === undefined) return [];
    const [x1, y1, x2, y2] = [from.x + NODE_WIDTH, from.y + NODE_HEIGHT / 2, to.x, to.y + NODE_HEIGHT / 2];
    const bend = (x2 - x1) / 2;
    const onPath = critical.has(`${edge.from}\u0000${edge.to}`);
    return [`<path class="edge${onPath ? ' critical' : ''}" d="M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}" marker-end="url(#arrow)"/>`];
  });
  const boxesSvg = [...boxes].map(([id, box]) => nodeBox(id, box, byId.get(id), plan.criticalPath.includes(id)));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="dag" role="img" aria-label="plan v${plan.version}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#5f6368"/></marker></defs>',
    ...edges,
    ...boxesSvg,
    '</svg>',
  ].join('\n');
}

function nodeBox(id: string, box: Box, node: ReportNode | undefined, critical: boolean): string {
  const colors = STATUS_COLORS[node?.status ?? ''] ?? PENDING_COLORS;
  const label = id.length > MAX_LABEL_CHARS ? `${id.slice(0, MAX_LABEL_CHARS - 1)}…` : id;
  const detail = node === undefined ? 'not run' : [node.status, node.durationMs === null ? null : formatDuration(node.durationMs), node.attempts > 1 ? `${node.attempts} attempts` : null].filter((part) => part !== null).join(' · ');
  const tooltip = node === undefined ? id : `${id}: ${node.title}`;
  return [
    `<g class="node${critical ? ' critical' : ''}" data-node-id="${htmlText(id)}">`,
    `<title>${htmlText(tooltip)}</title>`,
    `<rect x="${box.x}" y="${box.y}" width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="6" fill="${colors.fill}" stroke="${colors.stroke}"/>`,
    `<text class="id" x="${box.x + 10}" y="${box.y + 19}">${htmlText(label)}</text>`,
    `<text class="detail" x="${box.x + 10}" y="${box.y + 36}">${htmlText(detail)}</text>`,
    '</g>',
  ].join('');
}
