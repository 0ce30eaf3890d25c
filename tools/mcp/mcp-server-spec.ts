import type { ToolRisk } from '../define-tool.js';

/** How to reach one MCP server: a process speaking over stdio, or a streamable HTTP endpoint. */
export type McpTransportSpec =
  | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>>; readonly cwd?: string }
  | { readonly kind: 'http'; readonly url: string; readonly headers: Readonly<Record<string, string>> };

/** One configured server: its name (the `<server>` of `<server>__<tool>`), transport, and its tools' risk and timeout. */
export interface McpServerSpec {
  readonly name: string;
  readonly transport: McpTransportSpec;
  /** The risk of its tools; `command` for stdio servers and `network` for HTTP ones by default (both ask under `suggest`). */
  readonly risk?: ToolRisk;
  /** Per tool (its MCP name), wins over `risk`. */
  readonly toolRisk?: Readonly<Record<string, ToolRisk>>;
  /** One call's deadline. */
  readonly timeoutMs?: number;
  /** How long it may take to start and list its tools (`DEFAULT_MCP_STARTUP_TIMEOUT_MS` unless set). */
  readonly startupTimeoutMs?: number;
}

/** A stdio server's process after the sandbox had its say: the command line that really runs. */
export interface McpLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** The server's environment (the configured `env`, and what the sandbox adds to it). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Wraps a stdio server's command in the OS command sandbox (when one is available). */
export type McpSandbox = (launch: McpLaunch, cwd: string) => McpLaunch | Promise<McpLaunch>;
