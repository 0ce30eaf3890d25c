import { quote } from 'shell-quote';
import { withExtraInputFromFile, type CommandSandbox } from '../sandbox/index.js';
import type { McpSandbox } from './mcp-server-spec.js';

/**
 * Runs each stdio MCP server under the OS command sandbox, confined like a command: it writes only
 * to the workspace (not its `.git` or `.dagent`) and a private temp folder, cannot read credential
 * stores, reaches no network but the allow-list, and dies with dagent. Its own `env` passes.
 */
export function sandboxMcpLaunch(sandbox: CommandSandbox, workspace: string): McpSandbox {
  return async (launch, cwd) => {
    const command = `cd ${quote([cwd])} && exec ${quote([launch.command, ...launch.args])}`;
    // The client gives the server only stdio: the seccomp program comes from a file instead of a pipe.
    const wrapped = withExtraInputFromFile(await sandbox.wrap({ workspace, shell: '/bin/sh', command, env: { ...launch.env } }));
    return { command: wrapped.file, args: wrapped.args, env: wrapped.env };
  };
}
