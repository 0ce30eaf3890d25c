import { createDefaultTools, type DefaultToolsOptions } from './tool-catalog.js';
import { LocalToolRuntime, type ToolRuntimeOptions } from './tool-runtime.js';

export interface CreateToolRuntimeOptions extends ToolRuntimeOptions, DefaultToolsOptions {}

/**
 * A runtime with the default tools plus `options.tools` (e.g. `report_missing_work`, `remember`,
 * web tools from their own modules), approval settings as in the CLI (`approval`, `toolApproval`).
 */
export function createToolRuntime(options: CreateToolRuntimeOptions = {}): LocalToolRuntime {
  return new LocalToolRuntime({ ...options, tools: [...createDefaultTools(options), ...(options.tools ?? [])] });
}
