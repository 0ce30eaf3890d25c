import { z } from 'zod';
import { readBeside, type Session, type StepPosition, type ToolOutcome, type ToolSpec, type WriteScope } from '../engine/index.js';
import type { WorkspaceGuard } from './workspace/index.js';

/** What a tool may do to the world; decides its default approval policy (reads need none). */
export type ToolRisk = 'read' | 'write' | 'command' | 'network';

/** What a tool gets for one call. Tools reach nothing else: no globals, no process state. */
export interface ToolContext {
  readonly runId: string;
  readonly nodeId: string | null;
  readonly toolCallId: string;
  /** Every path goes through it. */
  readonly workspace: WorkspaceGuard;
  /** Aborted when the call times out or the run is cancelled. */
  readonly signal: AbortSignal;
  readonly position: StepPosition;
  /** The node's surface over the run log (`recall_history` reads it). */
  readonly session: Session;
  /** The files this node may write; every file when absent. */
  readonly writeScope?: WriteScope;
}

/** What a tool returns; the runtime adds timing, truncation and the arguments to `meta`. */
export interface ToolOutput {
  readonly content: string;
  /** Defaults to `outcome !== 'ok'`. */
  readonly isError?: boolean;
  /** Defaults to `ok`. */
  readonly outcome?: Extract<ToolOutcome, 'ok' | 'error' | 'refused' | 'timeout' | 'aborted'>;
  /** `path`, `contentType`, `exitCode`, ... and, for tools that page their own output, `truncated` / `originalLength`. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** A tool's own judgement of one call, before approval: `dangerous` is refused under every policy. */
export interface Assessment {
  readonly level: 'safe' | 'risky' | 'dangerous';
  readonly reason?: string;
  /** The call reaches a remote (`git push`, a download): a human approves it explicitly, under every policy. */
  readonly remote?: string;
  /** The call would run without the OS sandbox: refused under `auto`, with this line on how to get one. */
  readonly unconfined?: string;
}

/** A tool is data: name, description, argument schema, risk, and the function that runs it. */
export interface Tool<A = unknown> {
  readonly name: string;
  readonly description: string;
  readonly args: z.ZodType<A>;
  readonly risk: ToolRisk;
  /** Only meaningful in a planned run (it reports to the plan): left out of `react`'s tools. */
  readonly planOnly?: boolean;
  /** A team lead's tool (`delegate`, `await_nodes`): in no kind's default set; a node has it only when its `tools` name it. */
  readonly teamOnly?: boolean;
  /** Who produces this tool's content (`typescript` for the language service); `dagent` when absent. A result's own `meta.provider` wins. */
  readonly provider?: string;
  /** The JSON Schema the model sees when `args` cannot say it (MCP tools validate against their own schema); derived from `args` when absent. */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** The runtime's deadline for one call; the runtime's default (120 s) when absent. */
  timeoutFor?(args: A): number;
  /** One line a human approves: `write_file src/a.ts (12 lines)`. */
  summarize?(args: A): string;
  /** Classifies a call before approval (the command checker, the path guard for writes). */
  assess?(args: A, context: ToolContext): Assessment | Promise<Assessment>;
  /** Runs the call. Throw `ToolError` (or anything) for a failure: the runtime turns it into a result. */
  execute(args: A, context: ToolContext): Promise<ToolOutput>;
}

export interface ToolDefinition<S extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly args: S;
  readonly risk: ToolRisk;
  readonly planOnly?: boolean;
  readonly teamOnly?: boolean;
  readonly provider?: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly timeoutMs?: number | ((args: z.output<S>) => number);
  summarize?(args: z.output<S>): string;
  assess?(args: z.output<S>, context: ToolContext): Assessment | Promise<Assessment>;
  execute(args: z.output<S>, context: ToolContext): Promise<ToolOutput>;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Declares a tool, checking the parts the model relies on. */
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): Tool<z.output<S>> {
  if (!TOOL_NAME.test(definition.name)) throw new TypeError(`tool name "${definition.name}" must be snake_case (a-z, 0-9, _)`);
  if (definition.description.trim() === '') throw new TypeError(`tool ${definition.name} has no description`);
  const { timeoutMs, ...rest } = definition;
  const tool = {
    ...rest,
    ...(timeoutMs === undefined ? {} : { timeoutFor: typeof timeoutMs === 'function' ? timeoutMs : () => timeoutMs }),
  };
  return Object.freeze(tool) as Tool<z.output<S>>;
}

/** The tool as the model sees it: its arguments as JSON Schema (what the model may send). */
export function toToolSpec(tool: Tool): ToolSpec {
  // A tool is immutable once defined: its schema is rendered once, and every step gets the same spec.
  let spec = toolSpecs.get(tool);
  if (spec === undefined) {
    spec = renderToolSpec(tool);
    toolSpecs.set(tool, spec);
  }
  return spec;
}

const toolSpecs = new WeakMap<Tool, ToolSpec>();

function renderToolSpec(tool: Tool): ToolSpec {
  if (tool.parameters !== undefined) return { name: tool.name, description: tool.description, parameters: tool.parameters };
  const { $schema: _schema, ...parameters } = z.toJSONSchema(tool.args, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, parameters };
}

/**
 * Reads a tool's description from the Markdown file beside its module, at module load. From a
 * compiled copy under `dist/` (where the compiler copies no `.md`), the source folder is the fallback.
 */
export function loadToolDescription(moduleUrl: string, fileName: string): string {
  try {
    return readBeside(moduleUrl, fileName);
  } catch (error) {
    throw new Error(`tool description ${(error as Error).message}`);
  }
}
