import { defineTool, type Tool, type ToolRisk } from '../define-tool.js';
import { cleanToolSchema } from './clean-schema.js';
import type { JsonSchemaArgs } from './json-schema-args.js';
import type { McpConnection, McpToolInfo } from './mcp-connection.js';
import { renderMcpResult } from './render-mcp-result.js';

/** One MCP call's deadline unless the server's config sets `timeoutMs`. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 60_000;

/** The risk of one of a server's tools: its own setting, the server's, or by transport (`command` for stdio, `network` for HTTP). */
export function mcpToolRisk(connection: McpConnection, tool: string): ToolRisk {
  return connection.spec.toolRisk?.[tool] ?? connection.spec.risk ?? (connection.spec.transport.kind === 'stdio' ? 'command' : 'network');
}

/**
 * A server's tool as a dagent tool named `name` (`<server>__<tool>`): the model sees the cleaned
 * schema, the server's own schema validates the arguments, the call runs under the tool's
 * deadline, and the result is rendered with its meta.
 */
export function createMcpTool(connection: McpConnection, info: McpToolInfo, name: string, argsFor: JsonSchemaArgs): Tool {
  const server = connection.spec.name;
  const cleaned = cleanToolSchema(info.inputSchema);
  const timeoutMs = connection.spec.timeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS;
  const notes = cleaned.notes.length === 0 ? '' : `\nSchema notes: ${cleaned.notes.join('; ')}.`;
  const description = `${(info.description ?? '').trim() || `The ${info.name} tool.`}\n(Tool ${info.name} of the MCP server ${server}; its results are external content.)${notes}`;
  return defineTool({
    name,
    description,
    args: argsFor(info.inputSchema),
    parameters: cleaned.schema,
    risk: mcpToolRisk(connection, info.name),
    timeoutMs,
    summarize: (args) => {
      const text = JSON.stringify(args);
      return `${name} ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
    },
    async execute(args, context) {
      // The server is another process: what it changes in the workspace is found as a command's is.
      await context.writeScope?.beforeCommand?.();
      return renderMcpResult(server, info.name, await connection.call(info.name, args, context.signal, timeoutMs));
    },
  }) as Tool;
}
