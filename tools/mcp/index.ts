/** tools/mcp: Model Context Protocol servers, their connections, schema cleaning and their tools. */
export { cleanToolSchema, type CleanedSchema, type JsonSchema } from './clean-schema.js';
export { McpServers, type McpServerStatus } from './mcp-servers.js';
export { McpConnection, nextMcpState, DEFAULT_MCP_STARTUP_TIMEOUT_MS, type McpConnectionOptions, type McpServerState, type McpToolInfo } from './mcp-connection.js';
export { createMcpTool, mcpToolRisk, DEFAULT_MCP_TOOL_TIMEOUT_MS } from './mcp-tool.js';
export { mcpToolName, isMcpToolName, MAX_TOOL_NAME_CHARS } from './mcp-tool-name.js';
export { renderMcpResult, type McpCallResult, type McpContentBlock } from './render-mcp-result.js';
export { loadJsonSchemaArgs, type JsonSchemaArgs } from './json-schema-args.js';
export type { McpLaunch, McpSandbox, McpServerSpec, McpTransportSpec } from './mcp-server-spec.js';
export { sandboxMcpLaunch } from './mcp-sandbox.js';
