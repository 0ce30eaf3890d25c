/** `dagent report`: a run's report as data, and its markdown and html renderings. */
export { buildRunReport, type RunReport, type ReportDiff, type RunReportInput } from './run-report.js';
export { renderReportMarkdown, GITHUB_COMMENT_MAX_CHARS } from './report-markdown.js';
export { renderReportHtml } from './report-html.js';
export { reproduceCommands } from './reproduce-commands.js';
