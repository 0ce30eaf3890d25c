import { ConfigError, visibleText } from '../../engine/index.js';
import { McpServers, chooseSearchProvider, sandboxMcpLaunch, createWebFetchTool, createWebSearchTool, isMcpToolName, type LocalToolRuntime, type McpServerSpec, type Tool } from '../../tools/index.js';
import type { CliContext } from '../context/cli-context.js';
import { createConfinement } from './confinement.js';
import type { DagentConfig } from '../../engine/index.js';

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
    crossHostRedirects: web.crossHostRedirects === true,
  });
  const choice = chooseSearchProvider({ env: context.io.env, ...(web.searchProvider === undefined ? {} : { configured: web.searchProvider }) });
  const searchTool = createWebSearchTool({ choice, ...(web.searchEndpoint === undefined ? {} : { endpoint: web.searchEndpoint }) });
  return [fetchTool, searchTool] as Tool[];
}

/** The enabled MCP servers of the config, `${VAR}` references expanded from the environment; nothing is started. */
export function createMcpServers(context: CliContext): McpServers {
  const { mcpServers } = readOutsideToolsConfig(context.config);
  const specs = Object.entries(mcpServers)
    .filter(([, server]) => server.disabled !== true)
    .map(([name, server]) => mcpServerSpec(name, server, context.io.env));
  // A stdio server runs in the OS command sandbox, like a command; without one (or with --no-sandbox) as the user.
  const confinement = specs.some((spec) => spec.transport.kind === 'stdio') ? createConfinement(context) : undefined;
  if (confinement?.kind !== 'sandbox') return new McpServers(specs, { workspace: context.workspace });
  context.onClose(() => confinement.sandbox.close());
  return new McpServers(specs, { workspace: context.workspace, sandbox: sandboxMcpLaunch(confinement.sandbox, context.workspace) });
}

/**
 * Starts the configured MCP servers for this invocation's run and returns their tools; the
 * servers stop when the invocation ends. With no servers configured nothing starts.
 */
export async function startMcpTools(context: CliContext): Promise<Tool[]> {
  const servers = createMcpServers(context);
  if (servers.size === 0) return [];
  context.onClose(() => servers.stop());
  const tools = await servers.start();
  for (const server of servers.status()) {
    if (server.state === 'failed' && !context.json) context.io.stderr.write(`dagent: MCP server ${server.name} did not start: ${visibleText(server.error ?? 'unknown error')}\n`);
  }
  return tools;
}

type McpServerConfig = OutsideToolsConfig['mcpServers'][string];

function mcpServerSpec(name: string, server: McpServerConfig, env: NodeJS.ProcessEnv): McpServerSpec {
  const expand = (text: string, where: string): string => expandVariables(text, env, `mcpServers.${name}.${where}`);
  const expandAll = (record: Readonly<Record<string, string>> | undefined, where: string): Record<string, string> =>
    Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, expand(value, `${where}.${key}`)]));
  const transport: McpServerSpec['transport'] =
    'command' in server
      ? { kind: 'stdio', command: expand(server.command, 'command'), args: (server.args ?? []).map((arg, index) => expand(arg, `args.${index}`)), env: expandAll(server.env, 'env'), ...(server.cwd === undefined ? {} : { cwd: server.cwd }) }
      : { kind: 'http', url: expand(server.url, 'url'), headers: expandAll(server.headers, 'headers') };
  return {
    name,
    transport,
    ...(server.risk === undefined ? {} : { risk: server.risk }),
    ...(server.toolRisk === undefined ? {} : { toolRisk: server.toolRisk }),
    ...(server.timeoutMs === undefined ? {} : { timeoutMs: server.timeoutMs }),
    ...(server.startupTimeoutMs === undefined ? {} : { startupTimeoutMs: server.startupTimeoutMs }),
  };
}

/** `${NAME}` and `${NAME:-default}` from the environment, so keys stay out of the config file. */
function expandVariables(text: string, env: NodeJS.ProcessEnv, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new ConfigError(`${where}: environment variable ${name} is not set`);
  });
}
