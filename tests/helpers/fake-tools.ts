import type { ToolExecutionContext, ToolResult, ToolRuntime, ToolSpec } from '../../engine/index.js';

export type FakeToolHandler = (args: Record<string, unknown>, context: ToolExecutionContext) => Promise<ToolResult> | ToolResult;

/** A recording fake of our ToolRuntime: each tool is a handler; every call is kept with its node. */
export class FakeTools implements ToolRuntime {
  readonly calls: { node: string | null; name: string; args: unknown }[] = [];

  constructor(readonly handlers: Record<string, FakeToolHandler>) {}

  specs(allowed?: readonly string[]): ToolSpec[] {
    return Object.keys(this.handlers)
      .filter((name) => allowed === undefined || allowed.includes(name))
      .map((name) => ({ name, description: name, parameters: { type: 'object' } }));
  }

  async execute(call: { name: string; args: unknown }, context: ToolExecutionContext): Promise<ToolResult> {
    this.calls.push({ node: context.nodeId, name: call.name, args: call.args });
    const handler = this.handlers[call.name];
    if (handler === undefined) return toolFailed(`unknown tool ${call.name}`);
    return handler(call.args as Record<string, unknown>, context);
  }
}

export function toolOk(content: string): ToolResult {
  return { content, isError: false, meta: { outcome: 'ok', truncated: false, originalLength: content.length, durationMs: 1 } };
}

export function toolFailed(content: string, exitCode = 1): ToolResult {
  return { content, isError: true, meta: { outcome: 'error', truncated: false, originalLength: content.length, durationMs: 1, exitCode } };
}
