/** Pure plan renderers for `show`, `plan` and `import`: data in, text (or a JSON document) out, no colours. */
export { formatTokens, formatUsd } from './format-estimate.js';
export { MAX_FILES_PER_ROW, renderPlanText, type PlanTextOptions } from './plan-text.js';
export { renderPlanMermaid } from './plan-mermaid.js';
export { renderPlanDot } from './plan-dot.js';
export { planShowJson, type PlanShowDocument } from './plan-show-json.js';
