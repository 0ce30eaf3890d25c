import { chooseSearchProvider, createWebFetchTool, createWebSearchTool, type Tool } from '../tools/index.js';
import type { CliContext } from './cli-context.js';
import type { DagentConfig } from '../engine/index.js';

/** The settings of the tools that reach outside the workspace (web hosts, search, MCP servers). */
export interface OutsideToolsConfig {
  readonly web: NonNullable<DagentConfig['web']>;
  readonly mcpServers: NonNullable<DagentConfig['mcpServers']>;
}

/**
 * Where those settings are read: the one place to change when they move to another config file
 * (they decide which hosts and processes a run may reach, so they are trust-sensitive).
 */
export function readOutsideToolsConfig(config: DagentConfig): OutsideToolsConfig {
  return { web: config.web ?? {}, mcpServers: config.mcpServers ?? {} };
}

/** `web_fetch` under the configured host rules and caps, and `web_search` with the provider chosen from config and keys. */
export function createWebTools(context: CliContext): Tool[] {
  const { web } = readOutsideToolsConfig(context.config);
  const fetchTool = createWebFetchTool({
    ...(web.allowedHosts === undefined ? {} : { allowedHosts: web.allowedHosts }),
    ...(web.deniedHosts === undefined ? {} : { deniedHosts: web.deniedHosts }),
    ...(web.maxBytes === undefined ? {} : { maxBytes: web.maxBytes }),
    ...(web.timeoutMs === undefined ? {} : { totalTimeoutMs: web.timeoutMs }),
  });
  const choice = chooseSearchProvider({ env: context.io.env, ...(web.searchProvider === undefined ? {} : { configured: web.searchProvider }) });
  const searchTool = createWebSearchTool({ choice, ...(web.searchEndpoint === undefined ? {} : { endpoint: web.searchEndpoint }) });
  return [fetchTool, searchTool] as Tool[];
}
