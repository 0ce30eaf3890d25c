import { formatDuration, formatTokens, formatUsd, plural } from '../render/index.js';
import { markdownCodeBlock, markdownCodeSpan, markdownText, truncated } from './report-text.js';
import type { ReportNode, RunReport } from './run-report.js';

/** GitHub refuses a pull-request comment longer than this many characters. */
export const GITHUB_COMMENT_MAX_CHARS = 65_536;
/** Room kept under the limit for whatever a CI step wraps around the report. */
const MARKDOWN_BUDGET_CHARS = GITHUB_COMMENT_MAX_CHARS - 1_536;
/** Per-node detail (answers, errors) shortened step by step until the report fits. */
const DETAIL_LIMITS = [Number.POSITIVE_INFINITY, 4_000, 1_000, 200, 0];

/**
 * The report as a pull-request comment: a summary table, then the plan, nodes, replans, lint, diff
 * stat and the commands to reproduce, the long parts in collapsible `<details>`. It stays under
 * GitHub's comment size: per-node detail is cut shorter (with a note saying so) until it fits.
 */
export function renderReportMarkdown(report: RunReport): string {
  for (const limit of DETAIL_LIMITS) {
    const text = markdownWithDetail(report, limit);
    if (text.length <= MARKDOWN_BUDGET_CHARS) return text;
  }
  const note = `\n\n_The report was cut at ${MARKDOWN_BUDGET_CHARS} characters to fit a comment; \`dagent report ${report.run.id} --format html\` has all of it._\n`;
  return markdownWithDetail(report, 0).slice(0, MARKDOWN_BUDGET_CHARS - note.length) + note;
}

function markdownWithDetail(report: RunReport, detailLimit: number): string {
  return [header(report), plan(report), nodes(report), nodeDetails(report, detailLimit), replans(report), lint(report), diffStat(report), reproduce(report)]
    .filter((section) => section !== '')
    .join('\n\n')
    .concat('\n');
}

function header(report: RunReport): string {
  const { run, totals } = report;
  const succeeded = totals.nodes.succeeded ?? 0;
  const cacheShare = totals.tokens.input === 0 ? 0 : Math.round((totals.tokens.cacheHit / totals.tokens.input) * 100);
  const rows = [
    ['status', `${run.status}${run.planVersion === null ? '' : ` · plan v${run.planVersion}`} · ${succeeded}/${report.nodes.length} nodes succeeded · ${report.replans.length} replans`],
    ['time', run.durationMs === null ? '-' : formatDuration(run.durationMs)],
    ['tokens', `${formatTokens(totals.tokens.input)} in (${cacheShare}% cache hit) · ${formatTokens(totals.tokens.output)} out · ${plural(totals.modelCalls, 'model call')} · ${plural(totals.toolCalls, 'tool call')}`],
    ['cost', formatUsd(totals.costUsd)],
    ['model', run.model === null ? '-' : markdownText(run.model)],
  ];
  const lines = [`## dagent run ${markdownText(run.id)}: ${run.status}`, '', `**Task:** ${markdownText(run.task)}`, '', '| | |', '|---|---|', ...rows.map(([key, value]) => `| ${key} | ${value} |`)];
  if (run.error !== null) lines.push('', `**Error:** ${markdownText(run.error)}`);
  return lines.join('\n');
}

function plan(report: RunReport): string {
  if (report.plan === null) return '';
  const { plan: current } = report;
  const basis = current.criticalPathBasis === 'measured-time' ? 'by measured time' : 'by the plan';
  return [
    `### Plan v${current.version}`,
    '',
    markdownText(current.goal),
    '',
    ...current.stages.map((stage, index) => `${index + 1}. ${stage.map((id) => markdownCodeSpan(id)).join(' · ')}${stage.length > 1 ? ' (parallel)' : ''}`),
    '',
    `Critical path (${basis}): ${current.criticalPath.map((id) => markdownText(id)).join(' → ')} · width ${current.width}`,
  ].join('\n');
}

function nodes(report: RunReport): string {
  if (report.nodes.length === 0) return '';
  const rows = report.nodes.map((node) =>
    [
      markdownText(node.id),
      markdownText(node.kind),
      node.status,
      String(node.attempts),
      node.durationMs === null ? '-' : formatDuration(node.durationMs),
      formatTokens(node.tokens.input + node.tokens.output),
      formatUsd(node.costUsd),
      String(node.toolCalls.reduce((sum, tool) => sum + tool.count, 0)),
    ].join(' | '),
  );
  return ['### Nodes', '', '| node | kind | outcome | attempts | time | tokens | cost | tool calls |', '|---|---|---|--:|--:|--:|--:|--:|', ...rows.map((row) => `| ${row} |`)].join('\n');
}

function nodeDetails(report: RunReport, detailLimit: number): string {
  if (report.nodes.length === 0) return '';
  const cut = report.nodes.some((node) => (node.result ?? '').length > detailLimit || (node.error ?? '').length > detailLimit);
  const note = cut ? `\n\n_Answers and errors are cut to ${detailLimit} characters to fit a comment; ${markdownCodeSpan(`dagent log ${report.run.id} --node ID`)} has them whole._` : '';
  const body = report.nodes.map((node) => nodeDetail(report.run.id, node, detailLimit)).join('\n\n');
  return `<details><summary>Node details</summary>${note}\n\n${body}\n\n</details>`;
}

function nodeDetail(runId: string, node: ReportNode, detailLimit: number): string {
  const lines = [`#### ${markdownText(node.id)}: ${markdownText(node.title)}`, ''];
  const tokens = `${node.tokens.input} in (${node.tokens.cacheHit} cached) · ${node.tokens.output} out · ${plural(node.modelCalls, 'model call')}`;
  lines.push(`- ${node.status} after ${node.attempts} attempt${node.attempts === 1 ? '' : 's'} · ${tokens}${node.compactions > 0 ? ` · ${node.compactions} compactions` : ''}`);
  if (node.toolCalls.length > 0) lines.push(`- tools: ${node.toolCalls.map((tool) => `${markdownText(tool.name)} ×${tool.count}${tool.errors > 0 ? ` (${tool.errors} errors)` : ''}`).join(', ')}`);
  if (node.filesChanged.length > 0) lines.push(`- files changed: ${node.filesChanged.map((file) => markdownText(file)).join(', ')}`);
  for (const [label, text] of [['error', node.error], ['answer', node.result]] as const) {
    if (text === null || text === '' || detailLimit === 0) continue;
    const shown = truncated(text, detailLimit);
    lines.push('', `${label}:`, '', markdownCodeBlock(shown.text));
    if (shown.omitted > 0) lines.push('', `_… ${shown.omitted} more characters:_ ${markdownCodeSpan(`dagent log ${runId} --node ${node.id}`)}`);
  }
  return lines.join('\n');
}

function replans(report: RunReport): string {
  if (report.replans.length === 0) return '';
  const items = report.replans.map((replan) => {
    const from = replan.nodeId === null ? '' : ` from ${markdownText(replan.nodeId)}`;
    const outcome = replan.outcome === null ? 'unfinished' : replan.outcome === 'amended' ? `amended → plan v${replan.version ?? '?'}` : replan.outcome;
    const changes = [
      ...replan.addedNodes.map((id) => `+${markdownText(id)}`),
      ...replan.removedNodes.map((id) => `−${markdownText(id)}`),
      ...replan.addedEdges.map((edge) => `edge +${markdownText(edge)}`),
      ...replan.removedEdges.map((edge) => `edge −${markdownText(edge)}`),
    ];
    const reason = replan.reason === null ? '' : `: ${markdownText(replan.reason)}`;
    return `- after ${markdownText(replan.trigger)}${from} at ${Math.round(replan.progress * 100)}% (${markdownText(replan.mode)}) → ${outcome}${reason}${changes.length > 0 ? `\n  - changed: ${changes.join(', ')}` : ''}`;
  });
  return [`### Replans (${report.replans.length})`, '', ...items].join('\n');
}

function lint(report: RunReport): string {
  const findings = report.lint.flatMap((entry) => entry.findings.map((finding) => ({ version: entry.version, finding })));
  if (findings.length === 0) return '### Lint\n\nNo findings.';
  const items = findings.map(({ version, finding }) => `- **${finding.level}** ${markdownCodeSpan(finding.code)} (plan v${version}): ${markdownText(finding.message)}`);
  return `### Lint\n\n<details><summary>${findings.length} findings</summary>\n\n${items.join('\n')}\n\n</details>`;
}

function diffStat(report: RunReport): string {
  const { diff } = report;
  if (!diff.available) return `### Changes\n\nNo diff: ${markdownText(diff.reason)}`;
  if (diff.files.length === 0) return '### Changes\n\nNo files changed.';
  const rows = diff.files.map((file) => `| ${markdownText(file.path)} | ${file.change} | +${file.added} | −${file.removed} | ${file.nodeIds.map((id) => markdownText(id)).join(', ')} |`);
  return [
    '### Changes',
    '',
    `<details><summary>${diff.files.length} files changed, +${diff.added} −${diff.removed}</summary>`,
    '',
    '| file | change | added | removed | nodes |',
    '|---|---|--:|--:|---|',
    ...rows,
    '',
    '</details>',
  ].join('\n');
}

function reproduce(report: RunReport): string {
  return `### Reproduce\n\n<details><summary>Commands</summary>\n\n${markdownCodeBlock(report.reproduce.join('\n'), 'sh')}\n\n</details>`;
}


