import { formatDuration, formatTokens, formatUsd, plural } from '../render/index.js';
import { renderPlanSvg } from './plan-svg.js';
import { htmlText } from './report-text.js';
import type { ReportNode, RunReport } from './run-report.js';

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #202124; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; border-bottom: 1px solid #dadce0; padding-bottom: 4px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid #dadce0; padding: 4px 8px; text-align: left; vertical-align: top; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f8f9fa; border: 1px solid #dadce0; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.status-succeeded { color: #2e7d32; } .status-failed { color: #c62828; }
.dag-frame { overflow-x: auto; border: 1px solid #dadce0; padding: 8px; background: #fcfcfd; }
svg.dag text { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; fill: #202124; }
svg.dag text.detail { font: 11px system-ui, sans-serif; fill: #5f6368; }
svg.dag .edge { fill: none; stroke: #9aa0a6; stroke-width: 1.4; }
svg.dag .edge.critical { stroke: #e37400; stroke-width: 2.6; }
svg.dag .node.critical rect { stroke-width: 2.6; }
details { margin: 6px 0; } summary { cursor: pointer; font-weight: 600; }
`;

/** The report as one self-contained html page: inline CSS, the DAG as inline SVG, no script, nothing fetched. */
export function renderReportHtml(report: RunReport): string {
  const { run } = report;
  const title = `dagent run ${run.id}: ${run.status}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
    `<title>${htmlText(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${htmlText(title)}</h1>`,
    `<p><strong>Task:</strong> ${htmlText(run.task)}</p>`,
    summary(report),
    plan(report),
    nodeTable(report),
    nodeDetails(report),
    replans(report),
    lint(report),
    diffStat(report),
    `<h2>Reproduce</h2><pre><code>${htmlText(report.reproduce.join('\n'), { multiline: true })}</code></pre>`,
    '</body></html>',
  ].join('\n');
}

function summary(report: RunReport): string {
  const { run, totals } = report;
  const rows: [string, string][] = [
    ['status', `${run.status}${run.planVersion === null ? '' : ` · plan v${run.planVersion}`} · ${totals.nodes.succeeded ?? 0}/${report.nodes.length} nodes succeeded · ${report.replans.length} replans`],
    ['time', run.durationMs === null ? '-' : formatDuration(run.durationMs)],
    ['tokens', `${totals.tokens.input} in (${totals.tokens.cacheHit} cached) · ${totals.tokens.output} out · ${plural(totals.modelCalls, 'model call')} · ${plural(totals.toolCalls, 'tool call')}`],
    ['cost', formatUsd(totals.costUsd)],
    ['model', run.model ?? '-'],
    ['workspace', run.workspace],
  ];
  if (run.error !== null) rows.push(['error', run.error]);
  return `<table class="summary">${rows.map(([key, value]) => `<tr><th>${key}</th><td>${htmlText(value)}</td></tr>`).join('')}</table>`;
}

function plan(report: RunReport): string {
  if (report.plan === null) return '<h2>Plan</h2><p>No plan: a single agent ran the task.</p>';
  const current = report.plan;
  const basis = current.criticalPathBasis === 'measured-time' ? 'by measured time' : 'by the plan';
  const stages = current.stages.map((stage) => `<li>${stage.map((id) => `<code>${htmlText(id)}</code>`).join(' · ')}</li>`).join('');
  return [
    `<h2>Plan v${current.version}</h2>`,
    `<p>${htmlText(current.goal)}</p>`,
    `<div class="dag-frame">${renderPlanSvg(current, report.nodes)}</div>`,
    `<p><strong>Stages</strong></p><ol class="stages">${stages}</ol>`,
    `<p><strong>Critical path</strong> (${basis}): ${current.criticalPath.map((id) => `<code>${htmlText(id)}</code>`).join(' → ')} · width ${current.width}</p>`,
  ].join('\n');
}

function nodeTable(report: RunReport): string {
  if (report.nodes.length === 0) return '';
  const header = '<tr><th>node</th><th>kind</th><th>outcome</th><th>attempts</th><th>time</th><th>tokens in</th><th>tokens out</th><th>cost</th><th>tool calls</th></tr>';
  const rows = report.nodes.map((node) => {
    const cells = [
      `<td><code>${htmlText(node.id)}</code></td>`,
      `<td>${htmlText(node.kind)}</td>`,
      `<td class="status-${htmlText(node.status)}">${htmlText(node.status)}</td>`,
      `<td class="number">${node.attempts}</td>`,
      `<td class="number">${node.durationMs === null ? '-' : formatDuration(node.durationMs)}</td>`,
      `<td class="number">${formatTokens(node.tokens.input)}</td>`,
      `<td class="number">${formatTokens(node.tokens.output)}</td>`,
      `<td class="number">${formatUsd(node.costUsd)}</td>`,
      `<td class="number">${node.toolCalls.reduce((sum, tool) => sum + tool.count, 0)}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  return `<h2>Nodes</h2><table class="nodes">${header}${rows.join('')}</table>`;
}

function nodeDetails(report: RunReport): string {
  return report.nodes.map(nodeDetail).join('\n');
}

function nodeDetail(node: ReportNode): string {
  const items = [
    `${htmlText(node.status)} after ${node.attempts} attempt${node.attempts === 1 ? '' : 's'} · ${node.tokens.input} tokens in (${node.tokens.cacheHit} cached) · ${node.tokens.output} out · ${plural(node.modelCalls, 'model call')}${node.compactions > 0 ? ` · ${plural(node.compactions, 'compaction')}` : ''}`,
  ];
  if (node.toolCalls.length > 0) items.push(`tools: ${node.toolCalls.map((tool) => `${htmlText(tool.name)} ×${tool.count}${tool.errors > 0 ? ` (${tool.errors} errors)` : ''}`).join(', ')}`);
  if (node.filesChanged.length > 0) items.push(`files changed: ${node.filesChanged.map((file) => `<code>${htmlText(file)}</code>`).join(', ')}`);
  const texts = [['error', node.error], ['answer', node.result]]
    .filter((entry): entry is [string, string] => entry[1] !== null && entry[1] !== '')
    .map(([label, text]) => `<p>${label}:</p><pre>${htmlText(text, { multiline: true })}</pre>`);
  return `<details class="node-detail"><summary>${htmlText(node.id)}: ${htmlText(node.title)}</summary><ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>${texts.join('')}</details>`;
}

function replans(report: RunReport): string {
  if (report.replans.length === 0) return '';
  const items = report.replans.map((replan) => {
    const outcome = replan.outcome === null ? 'unfinished' : replan.outcome === 'amended' ? `amended → plan v${replan.version ?? '?'}` : replan.outcome;
    const changes = [
      ...replan.addedNodes.map((id) => `+${id}`),
      ...replan.removedNodes.map((id) => `−${id}`),
      ...replan.addedEdges.map((edge) => `edge +${edge}`),
      ...replan.removedEdges.map((edge) => `edge −${edge}`),
    ];
    const from = replan.nodeId === null ? '' : ` from ${replan.nodeId}`;
    const text = `after ${replan.trigger}${from} at ${Math.round(replan.progress * 100)}% (${replan.mode}) → ${outcome}${replan.reason === null ? '' : `: ${replan.reason}`}`;
    return `<li>${htmlText(text)}${changes.length > 0 ? `<br>changed: ${htmlText(changes.join(', '))}` : ''}</li>`;
  });
  return `<h2>Replans (${report.replans.length})</h2><ul>${items.join('')}</ul>`;
}

function lint(report: RunReport): string {
  const items = report.lint.flatMap((entry) => entry.findings.map((finding) => `<li><strong>${htmlText(finding.level)}</strong> <code>${htmlText(finding.code)}</code> (plan v${entry.version}): ${htmlText(finding.message)}</li>`));
  return `<h2>Lint</h2>${items.length === 0 ? '<p>No findings.</p>' : `<ul>${items.join('')}</ul>`}`;
}

function diffStat(report: RunReport): string {
  const { diff } = report;
  if (!diff.available) return `<h2>Changes</h2><p>No diff: ${htmlText(diff.reason)}</p>`;
  if (diff.files.length === 0) return '<h2>Changes</h2><p>No files changed.</p>';
  const rows = diff.files.map(
    (file) => `<tr><td><code>${htmlText(file.path)}</code></td><td>${htmlText(file.change)}</td><td class="number">+${file.added}</td><td class="number">−${file.removed}</td><td>${htmlText(file.nodeIds.join(', '))}</td></tr>`,
  );
  return `<h2>Changes</h2><p>${diff.files.length} files changed, +${diff.added} −${diff.removed}</p><table><tr><th>file</th><th>change</th><th>added</th><th>removed</th><th>nodes</th></tr>${rows.join('')}</table>`;
}
