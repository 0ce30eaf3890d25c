import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDefaultTools, defineTool, loadToolDescription, toToolSpec } from '../../tools/index.js';

describe('defineTool', () => {
  it('keeps the tool as data and exports its arguments as JSON Schema', () => {
    const tool = defineTool({
      name: 'sample_tool',
      description: 'A sample.',
      args: z.strictObject({ path: z.string().describe('a path'), limit: z.number().int().min(1).optional() }),
      risk: 'read',
      timeoutMs: 5_000,
      execute: async () => ({ content: '' }),
    });
    expect(tool.timeoutFor?.({ path: 'x' })).toBe(5_000);
    expect(toToolSpec(tool)).toEqual({
      name: 'sample_tool',
      description: 'A sample.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'a path' }, limit: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
        required: ['path'],
        additionalProperties: false,
      },
    });
  });

  it('rejects names the model could not call and empty descriptions', () => {
    const base = { description: 'x', args: z.object({}), risk: 'read' as const, execute: async () => ({ content: '' }) };
    expect(() => defineTool({ ...base, name: 'Read File' })).toThrow('tool name "Read File" must be snake_case');
    expect(() => defineTool({ ...base, name: 'ok_name', description: ' ' })).toThrow('tool ok_name has no description');
  });

  it('reads every default tool description from the Markdown file beside it', () => {
    for (const tool of createDefaultTools()) {
      expect(tool.description.length).toBeGreaterThan(100);
      expect(tool.description).not.toMatch(/^#/);
    }
    expect(() => loadToolDescription(import.meta.url, 'missing.md')).toThrow('tool description missing.md not found');
  });

  it('gives each default tool the arguments of the architecture table', () => {
    const properties = Object.fromEntries(
      createDefaultTools().map((tool) => [tool.name, Object.keys((toToolSpec(tool).parameters as { properties: object }).properties)]),
    );
    expect(properties).toEqual({
      list_files: ['path', 'pattern'],
      read_file: ['path', 'offset', 'limit'],
      grep: ['pattern', 'path', 'glob'],
      write_file: ['path', 'content'],
      edit_file: ['path', 'old_string', 'new_string', 'replace_all'],
      run_command: ['command', 'timeout_ms'],
      recall_history: ['seq', 'from_seq', 'to_seq', 'node', 'turn', 'step', 'tool_call_id', 'path', 'compaction_id'],
    });
  });
});
