import type { Tool, ToolRisk } from '../define-tool.js';
import { loadJsonSchemaArgs } from './json-schema-args.js';
import { McpConnection, type McpConnectionOptions, type McpServerState } from './mcp-connection.js';
import type { McpServerSpec } from './mcp-server-spec.js';
import { createMcpTool, mcpToolRisk } from './mcp-tool.js';
import { mcpToolName } from './mcp-tool-name.js';

/** One server as `dagent mcp list` shows it. */
export interface McpServerStatus {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  readonly state: McpServerState;
  readonly error?: string;
  readonly tools: readonly { readonly name: string; readonly mcpName: string; readonly risk: ToolRisk; readonly description?: string }[];
}

/**
 * The configured MCP servers of one run: nothing starts until `start()` (the first time a run's
 * tools are composed); all servers start in parallel, each bounded by its startup timeout; a
 * server that fails contributes no tools and reports why. `stop()` ends them all.
 */
export class McpServers {
  readonly #connections: readonly McpConnection[];
  #tools: Tool[] | undefined;
  #names = new Map<McpConnection, Map<string, string>>();

  constructor(specs: readonly McpServerSpec[], options: McpConnectionOptions) {
    this.#connections = specs.map((spec) => new McpConnection(spec, options));
  }

  get size(): number {
    return this.#connections.length;
  }

  /** Starts every server once and returns their tools as `<server>__<tool>`. */
  async start(): Promise<Tool[]> {
    if (this.#tools !== undefined) return this.#tools;
    const [argsFor] = await Promise.all([loadJsonSchemaArgs(), ...this.#connections.map((connection) => connection.start())]);
    const taken = new Set<string>();
    const tools: Tool[] = [];
    for (const connection of this.#connections) {
      const names = new Map<string, string>();
      for (const info of connection.tools) {
        const name = mcpToolName(connection.spec.name, info.name, taken);
        taken.add(name);
        names.set(info.name, name);
        tools.push(createMcpTool(connection, info, name, argsFor));
      }
      this.#names.set(connection, names);
    }
    this.#tools = tools;
    return tools;
  }

  status(): McpServerStatus[] {
    return this.#connections.map((connection) => ({
      name: connection.spec.name,
      transport: connection.spec.transport.kind,
      state: connection.state,
      ...(connection.error === undefined ? {} : { error: connection.error }),
      tools: connection.tools.map((info) => ({
        name: this.#names.get(connection)?.get(info.name) ?? mcpToolName(connection.spec.name, info.name),
        mcpName: info.name,
        risk: mcpToolRisk(connection, info.name),
        ...(info.description === undefined ? {} : { description: info.description }),
      })),
    }));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.stop()));
  }
}
