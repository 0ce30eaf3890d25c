/** tools/: the tool definition helper, the tool runtime, the workspace guard, the tools, approvals. */
export { defineTool, loadToolDescription, toToolSpec, type Assessment, type Tool, type ToolContext, type ToolDefinition, type ToolOutput, type ToolRisk } from './define-tool.js';
export { LocalToolRuntime, DEFAULT_TOOL_TIMEOUT_MS, MAX_CONCURRENT_COMMANDS, TOOL_CLEANUP_GRACE_MS, type ToolRuntimeOptions } from './tool-runtime.js';
export { createToolRuntime, type CreateToolRuntimeOptions } from './create-tool-runtime.js';
export { createDefaultTools, PLAN_TOOLS, isReadOnlyTool, toolSet, type DefaultToolsOptions, type ToolSetOptions, type ToolSource } from './tool-catalog.js';
export { parseToolArgs, describeArgsShape, type ParsedToolArgs } from './parse-tool-args.js';
export { truncateOutput, DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_MAX_OUTPUT_LINES, type TruncatedOutput, type TruncationLimits } from './truncate-output.js';
export { toolResultToJson, type ToolResultJson } from './tool-result-json.js';
export { ToolError, describeToolFailure, type ToolErrorOutcome, type DescribedFailure } from './tool-errors/index.js';

export { evaluateApproval, approvalPolicyFor, type ApprovalInput, type ApprovalSettings, type ApprovalVerdict } from './evaluate-approval.js';
export { createNonInteractiveApprover, createAutoYesApprover, createScriptedApprover, approverName, NO_TERMINAL_REASON, type NamedApprover } from './approvers.js';
export { createLogApprover } from './log-approver.js';
export { createTerminalApprover, parseApprovalAnswer, type TerminalApproverOptions } from './terminal-approver.js';

export * from './workspace/index.js';

export { listFilesTool, MAX_LIST_ENTRIES } from './list-files.js';
export { readFileTool, MAX_READ_LINES, MAX_LINE_CHARS } from './read-file.js';
export { createGrepTool, grepTool, GREP_MATCH_BUDGET_MS, MAX_GREP_MATCHES, type GrepToolOptions } from './grep.js';
export { writeFileTool } from './write-file.js';
export { editFileTool, planEdit, type PlannedEdit } from './edit-file.js';
export { findClosestLine, type ClosestLine } from './closest-line.js';
export { createRunCommandTool, detectConfinement, DEFAULT_COMMAND_TIMEOUT_MS, MAX_COMMAND_TIMEOUT_MS, type CommandConfinement, type RunCommandArgs, type RunCommandToolOptions } from './run-command.js';
export * from './sandbox/index.js';
export { killProcessGroup, KILL_GRACE_MS } from './process-group.js';
export * from './command-check/index.js';
export { recallHistoryTool, renderEvent, MAX_RECALLED_EVENTS, type RecallHistoryArgs } from './recall-history.js';
export { reportMissingWorkTool } from './report-missing-work.js';
export { delegateTool } from './delegate.js';
export { awaitNodesTool, MAX_AWAIT_MS } from './await-nodes.js';
export { createRememberTool } from './remember.js';

export * from './web/index.js';

export * from './mcp/index.js';
export * from './symbols/index.js';
export * from './hooks/index.js';
