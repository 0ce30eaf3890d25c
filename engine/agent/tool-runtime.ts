import type { APPROVAL_POLICIES, TOOL_OUTCOMES } from '../session/index.js';
import type { StepPosition } from '../context/runtime-context.js';
import type { ToolSpec } from '../model/model-provider.js';
import type { Session } from '../session/session.js';

/**
 * What the engine needs from tools. `tools/` implements it; the agent loop only calls
 * `specs()` and `execute()`, and appends the returned result to the log as `tool/result`.
 */

export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** Raw argument text when the model's arguments were not valid JSON. */
  readonly argsText?: string;
}

/** How a tool call ended. Only `ok` is a success; every other outcome is shown to the model as an error it can react to. */
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];

/** Stored with every `tool/result` (SPEC §1.6): what the model saw and where it came from. */
export interface ToolResultMeta {
  readonly outcome: ToolOutcome;
  readonly truncated: boolean;
  readonly originalLength: number;
  readonly durationMs: number;
  readonly args?: unknown;
  readonly path?: string;
  readonly url?: string;
  /** Where the content came from (path, URL, command, query); the log fills it in when absent (`withUniformToolMeta`). */
  readonly source?: string;
  readonly contentType?: string;
  /** Who produced the content: `dagent`, a search vendor, `typescript`, `mcp:<server>`. */
  readonly provider?: string;
  /** A failure the run cannot recover from by asking the model again (e.g. the database is gone). */
  readonly fatal?: boolean;
  /** The tool's risk (`read`, `write`, `command`, `network`): outcomes count denied writes and risky actions by it. */
  readonly risk?: string;
  /**
   * For the human, not the model: what a denial needs to go through next time (a flag, the plan
   * field). Set when there was no one to ask; progress lines, `status` and `dagent tool` show it.
   */
  readonly humanNextStep?: string;
  /** Set with `humanNextStep`: the call waits for a human's approval, which no replan can give. */
  readonly waitsFor?: 'human-approval';
  readonly [key: string]: unknown;
}

export interface ToolResult {
  /** Exactly the text the model sees. */
  readonly content: string;
  readonly isError: boolean;
  readonly meta: ToolResultMeta;
}

export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

export interface ApprovalRequest {
  readonly runId: string;
  readonly nodeId: string | null;
  readonly toolCallId: string;
  readonly tool: string;
  readonly args: unknown;
  /** One line a human can judge: `write_file src/a.ts (12 lines)`, `run_command npm test`. */
  readonly summary: string;
  readonly policy: Exclude<ApprovalPolicy, 'auto'>;
}

export type ApprovalAnswer =
  | { readonly decision: 'yes'; readonly recorded?: boolean }
  | { readonly decision: 'always'; readonly recorded?: boolean }
  | { readonly decision: 'no'; readonly reason?: string; readonly recorded?: boolean; readonly noOneToAsk?: boolean };
// `recorded`: the answer is already in the log (written by whoever answered, e.g. the dashboard), so the runtime does not write it again.
// `noOneToAsk`: the no is not a human's, there was no one to ask (a run without a terminal); the denial then waits for a human.

/** Asks a human (or a policy standing in for one) whether a risky tool call may run. */
export interface Approver {
  /** False when no human can answer: every question is denied and recorded. */
  readonly interactive: boolean;
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/** The files a node may write (its plan `writes` globs), and the hook that snapshots a file before its first write. */
export interface WriteScope {
  /** Undefined when writing `relativePath` is allowed; otherwise the refusal the model reads. */
  check(relativePath: string): string | undefined;
  /** Called once before each write with the file's workspace-relative path. */
  beforeWrite(relativePath: string): Promise<void>;
  /**
   * Called before something runs that may change files without `beforeWrite`: a command, a hook,
   * an MCP server's tool. A scope whose node took its boundary ahead (every plan node) has none.
   */
  beforeCommand?(): Promise<void>;
  /** A node run by a worker process: its claim, which its writes and commands must not outlive. */
  readonly claim?: ClaimFence;
}

/**
 * A worker's claim of the node, as its tools see it (engine/dispatch). Another worker may take
 * the node over once the claim expires, put its files back and run it again: nothing this worker
 * does after that may reach the workspace.
 */
export interface ClaimFence {
  /**
   * Runs one file write while the claim is held and current (a worker taking the node over waits
   * for it); throws, without calling `write`, once the claim is lost or expired. `write` holds a
   * store connection meanwhile: it must not use the store itself.
   */
  fence<T>(write: () => Promise<T>): Promise<T>;
  /** How long this process may still act on the claim, by its own monotonic clock and less a safety margin (ms; 0 once lost). */
  remainingMs(): number;
  /** Called after each renewal of the claim; returns an unsubscribe function. */
  onRenew(listener: () => void): () => void;
}

export interface ToolExecutionContext {
  readonly runId: string;
  readonly nodeId: string | null;
  readonly workspace: string;
  readonly signal: AbortSignal;
  readonly position: StepPosition;
  /** The node's surface over the run log: tools append `approval/*` and `tool/call`, and read events back. */
  readonly session: Session;
  readonly approver: Approver;
  /** The node's allow-list; every registered tool when omitted. */
  readonly allowedTools?: readonly string[];
  readonly writeScope?: WriteScope;
  /** What the approved plan grants this node without asking: see `PlanGrant`. */
  readonly planGrant?: PlanGrant;
}

/**
 * Approving a plan approves what it declares: an edit node's writes inside its `writes` globs
 * (`edits`), a command node's own command (`command`, compared byte for byte). Anything else a
 * node does still goes through the approval policy.
 */
export interface PlanGrant {
  readonly edits?: boolean;
  readonly command?: string;
}

export interface ToolRuntime {
  /** Tool specs for the model, limited to `allowed` when given, sorted by name. */
  specs(allowed?: readonly string[]): ToolSpec[];
  /** Validates, asks for approval, runs, times and truncates one call. Never throws for a tool's own failure. */
  execute(call: ToolCallRequest, context: ToolExecutionContext): Promise<ToolResult>;
  /** A registered tool's risk (`read`, `write`, `command`, `network`); undefined for an unknown one. A resumed node runs again only `read` calls. */
  riskOf?(name: string): string | undefined;
}
