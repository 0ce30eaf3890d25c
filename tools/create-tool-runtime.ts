import type { Tool } from './define-tool.js';
import { editFileTool } from './edit-file.js';
import { grepTool } from './grep.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { recallHistoryTool } from './recall-history.js';
import { createRunCommandTool, type RunCommandToolOptions } from './run-command.js';
import { LocalToolRuntime, type ToolRuntimeOptions } from './tool-runtime.js';
import { writeFileTool } from './write-file.js';

/** The tools every node may be given, by the names of ARCHITECTURE.md's table. */
export const DEFAULT_TOOL_NAMES = ['list_files', 'read_file', 'grep', 'write_file', 'edit_file', 'run_command', 'recall_history'] as const;

/** Read-only tools: what a `read` node gets. */
export const READ_ONLY_TOOL_NAMES = ['list_files', 'read_file', 'grep', 'recall_history'] as const;

export interface DefaultToolsOptions {
  readonly runCommand?: RunCommandToolOptions;
}

/** The file, command and history tools. */
export function createDefaultTools(options: DefaultToolsOptions = {}): Tool[] {
  return [listFilesTool, readFileTool, grepTool, writeFileTool, editFileTool, createRunCommandTool(options.runCommand), recallHistoryTool] as Tool[];
}

export interface CreateToolRuntimeOptions extends ToolRuntimeOptions, DefaultToolsOptions {}

/**
 * A runtime with the default tools plus `options.tools` (e.g. `report_missing_work`, `remember`,
 * web tools from their own modules), approval settings as in the CLI (`approval`, `toolApproval`).
 */
export function createToolRuntime(options: CreateToolRuntimeOptions = {}): LocalToolRuntime {
  return new LocalToolRuntime({ ...options, tools: [...createDefaultTools(options), ...(options.tools ?? [])] });
}
