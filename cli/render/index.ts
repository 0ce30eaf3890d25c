/** Pure renderers for `show`, `plan`, `import`, `diff` and `revert`: data in, text (or a JSON document) out. */
export { formatTokens, formatUsd } from './format-estimate.js';
export { MAX_FILES_PER_ROW, renderPlanText, type PlanTextOptions } from './plan-text.js';
export { renderPlanMermaid } from './plan-mermaid.js';
export { renderPlanDot } from './plan-dot.js';
export { planShowJson, type PlanShowDocument } from './plan-show-json.js';
export { diffJson, diffStatJson, fileStat, type FileStat } from './diff-json.js';
export { renderColoredDiff, renderDiffStat } from './diff-text.js';
export { renderRevertText } from './revert-text.js';
export { nodeRevertedJson, revertedLines } from './reverted-lines.js';
export { formatDuration, durationBetween } from './duration.js';
export { renderTable } from './table.js';
export { formatEventLine, summarizeEvent, eventJson } from './event-line.js';
export { renderRequestText } from './request-text.js';
export { plural } from './counts.js';
export { foldLines } from './one-line.js';
export { overlappedNote } from './overlapped-note.js';
