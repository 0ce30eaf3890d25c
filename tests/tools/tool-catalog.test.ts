import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRuntime, defineTool, isReadOnlyTool, PLAN_TOOLS, reportMissingWorkTool, toolSet, type ToolRisk } from '../../tools/index.js';

function toolOfRisk(name: string, risk: ToolRisk) {
  return defineTool({ name, description: `a ${risk} tool`, args: z.object({}), risk, execute: async () => ({ content: 'ok' }) });
}

describe('the tool catalog', () => {
  it('puts a new read-risk tool in the read-only set, and only there by its risk', () => {
    const runtime = createToolRuntime({ tools: [toolOfRisk('count_lines', 'read'), toolOfRisk('upload_report', 'network')] });

    const readOnly = toolSet(runtime, 'read-only');
    const all = toolSet(runtime, 'all');

    expect(readOnly).toContain('count_lines');
    expect(readOnly).not.toContain('upload_report');
    expect(all).toEqual(expect.arrayContaining(['count_lines', 'upload_report']));
  });

  it('derives the read-only built-ins from their risk: reading and history, no writes, no commands', () => {
    const runtime = createToolRuntime();

    expect(toolSet(runtime, 'read-only')).toEqual(['grep', 'list_files', 'read_file', 'recall_history']);
    expect(toolSet(runtime, 'all')).toEqual(['edit_file', 'grep', 'list_files', 'read_file', 'recall_history', 'run_command', 'write_file']);
    expect(toolSet(runtime, 'none')).toEqual([]);
    expect(isReadOnlyTool({ risk: 'write' })).toBe(false);
  });

  it('leaves the tools that report to a plan out of a run without one', () => {
    const runtime = createToolRuntime({ tools: [reportMissingWorkTool] });

    expect(toolSet(runtime, 'read-only')).toContain('report_missing_work');
    expect(toolSet(runtime, 'all', { planned: false })).not.toContain('report_missing_work');
  });

  it('registers the plan and team tools from one catalog list: a node gets report_missing_work by its risk, never a team lead’s tools', () => {
    const runtime = createToolRuntime({ tools: [...PLAN_TOOLS] });

    expect(runtime.names()).toEqual(expect.arrayContaining(['await_nodes', 'delegate', 'report_missing_work']));
    expect(toolSet(runtime, 'all')).toContain('report_missing_work');
    expect(toolSet(runtime, 'all')).not.toContain('delegate');
    expect(toolSet(runtime, 'all')).not.toContain('await_nodes');
  });
});
