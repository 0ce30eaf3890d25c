import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolError } from '../tool-errors/index.js';
import type { McpCallResult } from './render-mcp-result.js';
import type { McpSandbox, McpServerSpec } from './mcp-server-spec.js';
import { hiddenPathHint, stderrNote } from './server-stderr.js';

/** A server connection's lifecycle; `failed` covers both a failed start and a crash (the next call restarts it once). */
export type McpServerState = 'idle' | 'starting' | 'ready' | 'failed' | 'stopped';

const MOVES: Readonly<Record<McpServerState, readonly McpServerState[]>> = {
  idle: ['starting', 'stopped'],
  starting: ['ready', 'failed', 'stopped'],
  ready: ['failed', 'stopped'],
  failed: ['starting', 'stopped'],
  stopped: [],
};

/** The one transition function of a connection's state; an illegal move is a bug. */
export function nextMcpState(from: McpServerState, to: McpServerState): McpServerState {
  if (!MOVES[from].includes(to)) throw new Error(`MCP connection cannot go from ${from} to ${to}`);
  return to;
}

/** A tool as the server lists it. */
export interface McpToolInfo {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: unknown;
}

export interface McpConnectionOptions {
  /** Where a stdio server runs unless its config says otherwise. */
  readonly workspace: string;
  readonly startupTimeoutMs?: number;
  readonly sandbox?: McpSandbox;
}

export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 15_000;
const STDERR_TAIL_CHARS = 1_000;
const CALL_BACKSTOP_MS = 2_000;
const CLIENT_INFO = { name: 'dagent', version: '0.1.0' };

/**
 * One MCP server through the official SDK: started on demand, its tools listed once per start,
 * calls bounded by a deadline and the caller's signal, and a crash recorded (with the end of the
 * server's stderr) so the next call gets a clear error or a fresh start.
 */
export class McpConnection {
  readonly spec: McpServerSpec;
  readonly #options: McpConnectionOptions;
  #state: McpServerState = 'idle';
  #error: string | undefined;
  #tools: readonly McpToolInfo[] = [];
  #client: Client | undefined;
  #starting: Promise<void> | undefined;
  #stderr = '';

  constructor(spec: McpServerSpec, options: McpConnectionOptions) {
    this.spec = spec;
    this.#options = options;
  }

  get state(): McpServerState {
    return this.#state;
  }

  /** Why the server failed to start or stopped answering. */
  get error(): string | undefined {
    return this.#error;
  }

  get tools(): readonly McpToolInfo[] {
    return this.#tools;
  }

  /** Connects and lists the tools; concurrent callers share one start. Never throws: a failure is the `failed` state. */
  start(): Promise<void> {
    if (this.#state === 'ready' || this.#state === 'stopped') return Promise.resolve();
    this.#starting ??= this.#start().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  async #start(): Promise<void> {
    this.#move('starting');
    this.#error = undefined;
    this.#stderr = '';
    const timeout = this.spec.startupTimeoutMs ?? this.#options.startupTimeoutMs ?? DEFAULT_MCP_STARTUP_TIMEOUT_MS;
    let client: Client | undefined;
    try {
      // The SDK is loaded when a server first starts, not with every CLI command.
      const { Client: SdkClient } = await import('@modelcontextprotocol/sdk/client/index.js');
      if (this.#state !== 'starting') return;
      client = new SdkClient(CLIENT_INFO, { capabilities: {} });
      this.#client = client;
      const transport = await this.#transport();
      const started = client;
      client.onclose = () => this.#closed(started);
      await client.connect(transport, { timeout });
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
        for (const tool of page.tools) tools.push({ name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), inputSchema: tool.inputSchema });
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      if (this.#state !== 'starting') {
        // Stopped while starting: stop() may have missed this client.
        await closeQuietly(client);
        return;
      }
      this.#tools = tools;
      this.#move('ready');
    } catch (error) {
      if (this.#state !== 'starting') return;
      this.#error = `${startupErrorText(error, timeout)}${this.#stderrNote()}`;
      this.#move('failed');
      if (client !== undefined) await closeQuietly(client);
    }
  }

  /** Calls one tool; a server that is down, crashes mid-call or answers with a protocol error is a recoverable tool error. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<McpCallResult> {
    if (this.#state === 'failed' || this.#state === 'idle') await this.start();
    const client = this.#client;
    if (this.#state !== 'ready' || client === undefined) {
      throw new ToolError(`MCP server ${this.spec.name} is not running${this.#error === undefined ? '' : `: ${this.#error}`}`);
    }
    try {
      // The caller's signal carries the tool deadline; the SDK's own timeout is only a backstop a little later.
      const backstop = timeoutMs + CALL_BACKSTOP_MS;
      return (await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: backstop, maxTotalTimeout: backstop })) as McpCallResult;
    } catch (error) {
      if (signal.aborted) throw error;
      const crashed = (this.#state as McpServerState) === 'failed' ? `; the server stopped${this.#stderrNote()}` : '';
      throw new ToolError(`MCP server ${this.spec.name}: ${tool} failed: ${errorText(error)}${crashed}`);
    }
  }

  /** Stops the server (ends a stdio process: stdin closed, then SIGTERM, then SIGKILL). */
  async stop(): Promise<void> {
    if (this.#state === 'stopped') return;
    this.#move('stopped');
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) await closeQuietly(client);
  }

  async #transport(): Promise<Transport> {
    const spec = this.spec.transport;
    if (spec.kind === 'http') {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: { ...spec.headers } } });
    }
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const cwd = spec.cwd ?? this.#options.workspace;
    const launch = (await this.#options.sandbox?.({ command: spec.command, args: spec.args, env: spec.env }, cwd)) ?? { command: spec.command, args: spec.args };
    const transport = new StdioClientTransport({ command: launch.command, args: [...launch.args], env: { ...(launch.env ?? spec.env) }, cwd, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = `${this.#stderr}${chunk.toString('utf8')}`.slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }

  #closed(client: Client): void {
    if (client !== this.#client || (this.#state !== 'ready' && this.#state !== 'starting')) return;
    this.#error = `the server closed the connection${this.#stderrNote()}`;
    if (this.#state === 'ready') this.#move('failed');
  }

  /** The end of the server's stderr, and for a sandboxed stdio server, the folder the sandbox hid from it. */
  #stderrNote(): string {
    const sandboxed = this.spec.transport.kind === 'stdio' && this.#options.sandbox !== undefined;
    return `${stderrNote(this.#stderr)}${sandboxed ? hiddenPathHint(this.#stderr, this.#options.workspace) : ''}`;
  }

  #move(to: McpServerState): void {
    this.#state = nextMcpState(this.#state, to);
  }
}

async function closeQuietly(client: Client): Promise<void> {
  await client.close().catch(() => undefined);
}

/** A start that ran out of time says how long it was given and which setting gives more (the SDK says "Request timed out"). */
function startupErrorText(error: unknown, timeoutMs: number): string {
  const text = errorText(error);
  return /request timed out/i.test(text) ? `did not answer within ${timeoutMs / 1000} s of its start (startupTimeoutMs in its settings gives it longer)` : text;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
