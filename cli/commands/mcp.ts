import { visibleJson, visibleText } from '../../engine/index.js';
import type { McpServerStatus } from '../../tools/index.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { createMcpServers, readOutsideToolsConfig } from '../runtime/outside-tools.js';

const ACTIONS = ['list'] as const;

/** `dagent mcp list`: starts each configured server, shows its state and tools, and stops it again. */
export const mcpCommand = defineCommand<{ action: (typeof ACTIONS)[number] }>({
  examples: [
    ['$0 mcp list', 'each configured MCP server, its state and its tools'],
  ],
  builder: (yargs) => yargs.positional('action', { type: 'string', choices: ACTIONS, demandOption: true }),
  async run(context) {
    const disabled = Object.entries(readOutsideToolsConfig(context.config).mcpServers)
      .filter(([, server]) => server.disabled === true)
      .map(([name]) => name);
    const servers = createMcpServers(context);
    context.onClose(() => servers.stop());
    await servers.start();
    const status = servers.status();
    await servers.stop();
    if (context.json) {
      writeLine(context.io.stdout, visibleJson(JSON.stringify({ servers: [...status, ...disabled.map((name) => ({ name, state: 'disabled', tools: [] }))] })));
    } else if (status.length === 0 && disabled.length === 0) {
      writeLine(context.io.stdout, 'no MCP servers configured: add "mcpServers" to ~/.config/dagent/config.json (or to a trusted workspace\'s .dagent/config.json)');
    } else {
      // Tool names and descriptions come from the servers: escapes in them are shown, not obeyed.
      writeLine(context.io.stdout, visibleText([...status.map(formatServer), ...disabled.map((name) => `${name} · disabled`)].join('\n\n'), { multiline: true }));
    }
    return status.some((server) => server.state === 'failed') ? 1 : 0;
  },
});

function formatServer(server: McpServerStatus): string {
  const head = `${server.name} · ${server.transport} · ${server.state === 'stopped' ? 'started, now stopped' : server.state}${server.error === undefined ? '' : ` · ${server.error}`}`;
  if (server.tools.length === 0) return server.state === 'failed' ? head : `${head}\n  (no tools)`;
  const width = Math.max(...server.tools.map((tool) => tool.name.length));
  const lines = server.tools.map((tool) => `  ${tool.name.padEnd(width)}  ${tool.risk.padEnd(7)}  ${firstLine(tool.description ?? '')}`.trimEnd());
  return `${head} · ${server.tools.length} tools\n${lines.join('\n')}`;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
