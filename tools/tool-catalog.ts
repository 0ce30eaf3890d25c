import { assertNever, type NodeKindTools } from '../engine/index.js';
import type { Tool } from './define-tool.js';
import { awaitNodesTool } from './await-nodes.js';
import { delegateTool } from './delegate.js';
import { editFileTool } from './edit-file.js';
import { grepTool } from './grep.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { recallHistoryTool } from './recall-history.js';
import { reportMissingWorkTool } from './report-missing-work.js';
import { createRunCommandTool, type RunCommandToolOptions } from './run-command.js';
import { writeFileTool } from './write-file.js';

export interface DefaultToolsOptions {
  readonly runCommand?: RunCommandToolOptions;
}

/**
 * The built-in tools: the file, command and history tools. A new built-in tool is its file and one
 * line here (or in `PLAN_TOOLS`); tools bound to the invocation (memory, web, symbols, MCP) are added
 * by the composition root. Which node gets which tool follows from each tool's `risk` (`toolSet`),
 * never from a list of names.
 */
export function createDefaultTools(options: DefaultToolsOptions = {}): Tool[] {
  return [listFilesTool, readFileTool, grepTool, writeFileTool, editFileTool, createRunCommandTool(options.runCommand), recallHistoryTool] as Tool[];
}

/**
 * The tools that speak to the plan of a run (`planOnly`: left out of `react`) or lead a team
 * (`teamOnly`): registered by every CLI invocation that runs nodes, beside the built-ins.
 */
export const PLAN_TOOLS: readonly Tool[] = [reportMissingWorkTool, delegateTool, awaitNodesTool] as Tool[];

/** A tool that reads only: decided by its risk alone. */
export function isReadOnlyTool(tool: Pick<Tool, 'risk'>): boolean {
  return tool.risk === 'read';
}

/** The registered tools a set is drawn from (a `LocalToolRuntime`). */
export interface ToolSource {
  names(): string[];
  get(name: string): Pick<Tool, 'name' | 'risk' | 'planOnly' | 'teamOnly'> | undefined;
}

export interface ToolSetOptions {
  /** Outside a planned run (`react`) the tools that report to the plan are left out. */
  readonly planned?: boolean;
}

/**
 * The names of a node kind's default tool set among the registered tools, sorted:
 * `read-only` the tools of risk `read`, `all` every tool, `none` no tool. A team lead's tools (`teamOnly`) are in none.
 */
export function toolSet(source: ToolSource, set: NodeKindTools, options: ToolSetOptions = {}): string[] {
  const tools = source.names().flatMap((name) => {
    const tool = source.get(name);
    return tool === undefined || tool.teamOnly === true || (options.planned === false && tool.planOnly === true) ? [] : [tool];
  });
  switch (set) {
    case 'none':
      return [];
    case 'read-only':
      return tools.filter(isReadOnlyTool).map((tool) => tool.name);
    case 'all':
      return tools.map((tool) => tool.name);
    default:
      return assertNever(set);
  }
}
