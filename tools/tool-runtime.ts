import { posix } from 'node:path';
import PQueue from 'p-queue';
import { KeyedLock } from './keyed-lock.js';
import type {
  ApprovalAnswer,
  ApprovalPolicy,
  ApprovalRequest,
  Approver,
  ToolCallRequest,
  ToolExecutionContext,
  ToolOutcome,
  ToolResult,
  ToolResultMeta,
  ToolRuntime,
  ToolSpec,
  HookRunner,
} from '../engine/index.js';
import { withUniformToolMeta } from '../engine/index.js';
import { approverName } from './approvers.js';
import { checkedSummary, withoutTerminalNextStep } from './denial-words.js';
import { toToolSpec, type Assessment, type Tool, type ToolContext, type ToolOutput } from './define-tool.js';
import { approvalPolicyFor, evaluateApproval, type ApprovalSettings } from './evaluate-approval.js';
import { parseToolArgs } from './parse-tool-args.js';
import { postToolUseHooks, preToolUseHooks } from './tool-hooks.js';
import { describeToolFailure } from './tool-errors/index.js';
import { DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_MAX_OUTPUT_LINES, truncateOutput, type TruncationLimits } from './truncate-output.js';
import { WorkspaceGuard } from './workspace/index.js';

/** A tool call's deadline unless the tool sets its own. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
/** How long a timed-out or aborted tool gets to clean up (kill its processes) before the result is returned. */
export const TOOL_CLEANUP_GRACE_MS = 5_000;

export interface ToolRuntimeOptions extends ApprovalSettings {
  readonly tools?: readonly Tool[];
  readonly limits?: Partial<TruncationLimits>;
  readonly defaultTimeoutMs?: number;
  /** Milliseconds since an arbitrary origin, for `durationMs`; `performance.now` by default. */
  readonly now?: () => number;
  /** Commands (tools of risk `command`) running at once through this runtime; default `MAX_CONCURRENT_COMMANDS`. */
  readonly maxConcurrentCommands?: number;
  /** Configured hooks: `PreToolUse` before a call is approved and run, `PostToolUse` after it ran. */
  readonly hooks?: HookRunner;
}

/** Commands one runtime (one run) runs at once; more wait for a slot, so one response cannot start hundreds of processes. */
export const MAX_CONCURRENT_COMMANDS = 4;

/**
 * The engine's `ToolRuntime`: a registry of tools and the one wrapper every call goes through —
 * name and allow-list check, argument validation, approval (SPEC §4.1, recorded as `approval/*`
 * events), a `tool/call` event, execution under a deadline and the run's signal, truncation, and
 * exceptions turned into results the model can read. The agent appends the `tool/result`.
 */
export class LocalToolRuntime implements ToolRuntime {
  readonly #tools = new Map<string, Tool>();
  /** `names()`, kept until a tool is registered: every step of every node asks for it. */
  #names: readonly string[] | undefined;
  readonly #approval: ApprovalSettings;
  readonly #limits: TruncationLimits;
  readonly #defaultTimeoutMs: number;
  readonly #now: () => number;
  readonly #guards = new Map<string, Promise<WorkspaceGuard>>();
  readonly #fileLocks = new KeyedLock();
  readonly #commandSlots: PQueue;
  readonly #hooks: HookRunner | undefined;

  constructor(options: ToolRuntimeOptions = {}) {
    this.#approval = { approval: options.approval, toolApproval: options.toolApproval };
    this.#limits = { maxChars: options.limits?.maxChars ?? DEFAULT_MAX_OUTPUT_CHARS, maxLines: options.limits?.maxLines ?? DEFAULT_MAX_OUTPUT_LINES };
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#commandSlots = new PQueue({ concurrency: options.maxConcurrentCommands ?? MAX_CONCURRENT_COMMANDS });
    this.#hooks = options.hooks;
    for (const tool of options.tools ?? []) this.register(tool);
  }

  /** Adds a tool; a second tool with the same name is a programming error. */
  register(tool: Tool): this {
    if (this.#tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    this.#tools.set(tool.name, tool);
    this.#names = undefined;
    return this;
  }

  /** The configured hooks, for the engine's own moments (node start and end, compaction, run end). */
  get hooks(): HookRunner | undefined {
    return this.#hooks;
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Registered tool names, sorted. */
  names(): string[] {
    return [...this.#sortedNames()];
  }

  specs(allowed?: readonly string[]): ToolSpec[] {
    return this.#sortedNames()
      .filter((name) => allowed === undefined || allowed.includes(name))
      .map((name) => toToolSpec(this.#tools.get(name)!));
  }

  #sortedNames(): readonly string[] {
    this.#names ??= [...this.#tools.keys()].sort();
    return this.#names;
  }

  riskOf(name: string): string | undefined {
    return this.#tools.get(name)?.risk;
  }

  /** The approval policy in force for a tool. */
  policyFor(name: string): ApprovalPolicy {
    const tool = this.#tools.get(name);
    return tool === undefined ? 'never' : approvalPolicyFor(tool, this.#approval);
  }

  /** One call through the whole wrapper; never throws for the tool's own failure (see the class comment). */
  async execute(call: ToolCallRequest, context: ToolExecutionContext): Promise<ToolResult> {
    const started = this.#now();
    const finish = (outcome: ToolOutcome, content: string, extra: FinishExtra = {}): ToolResult =>
      this.#result(call.name, outcome, content, { ...extra, durationMs: this.#now() - started });

    const tool = this.#tools.get(call.name);
    if (tool === undefined) {
      return finish('unknown-tool', `unknown tool "${call.name}". Available tools: ${this.#visibleNames(context).join(', ')}`, { args: call.args });
    }
    if (context.allowedTools !== undefined && !context.allowedTools.includes(tool.name)) {
      const allowed = [...context.allowedTools].sort();
      return finish('not-allowed', `tool ${tool.name} is not allowed in this node. Allowed tools: ${allowed.length === 0 ? '(none)' : allowed.join(', ')}`, {
        args: call.args,
      });
    }
    const parsed = parseToolArgs(tool, call);
    if (!parsed.ok) return finish('invalid-args', parsed.message, { args: parsed.received });
    const args = parsed.args;
    if (context.signal.aborted) return finish('aborted', 'aborted: the run was cancelled before this call ran', { args });

    let guard: WorkspaceGuard | undefined;
    try {
      guard = await this.#guard(context.workspace);
      const blocked = await preToolUseHooks(this.#hooks, { tool: tool.name, call, args, workspace: guard.realRoot, context });
      if (blocked !== undefined) return finish('refused', blocked, { args, meta: { risk: tool.risk, blockedBy: 'hook' } });
      const toolContext = await this.#toolContext(call, context, context.signal);
      const assessment = tool.assess === undefined ? undefined : await tool.assess(args, toolContext);
      const gate = await this.#approve(tool, call, args, assessment, context);
      if (gate !== undefined) return finish(gate.outcome, gate.content, { args, meta: { risk: tool.risk, ...gate.meta } });
      await context.session.append({
        type: 'tool/call',
        turn: context.position.turn,
        step: context.position.step,
        payload: { toolCallId: call.id, name: tool.name, args },
      });
      const output =
        tool.risk === 'command'
          ? ((await this.#commandSlots.add(() => {
              // Cancelled while waiting for a slot: do not start it. (A running command handles the signal itself.)
              context.signal.throwIfAborted();
              return this.#runLocked(tool, args, call, context);
            })) as ToolOutput)
          : await this.#runLocked(tool, args, call, context);
      const outcome = output.outcome ?? 'ok';
      const isError = output.isError ?? outcome !== 'ok';
      const said = await postToolUseHooks(this.#hooks, { tool: tool.name, call, args, workspace: guard.realRoot, context }, { content: output.content, isError, outcome });
      return finish(outcome, output.content, { args, isError, meta: { provider: tool.provider, ...output.meta, risk: tool.risk }, ...(said === undefined ? {} : { appendix: said }) });
    } catch (error) {
      const failure = describeToolFailure(error, (path) => guard?.display(path) ?? path);
      return finish(failure.outcome, `${failure.outcome === 'refused' ? 'refused' : 'error'}: ${failure.message}`, {
        args,
        meta: failure.fatal ? { fatal: true } : undefined,
      });
    }
  }

  /** Returns the refusal or denial to show, or undefined when the call may run. */
  async #approve(
    tool: Tool,
    call: ToolCallRequest,
    args: unknown,
    assessment: Assessment | undefined,
    context: ToolExecutionContext,
  ): Promise<{ outcome: ToolOutcome; content: string; meta?: { humanNextStep: string; waitsFor: 'human-approval' } } | undefined> {
    const policy = approvalPolicyFor(tool, this.#approval);
    const grantedByPlan = grantedByThePlan(tool, args, context);
    let verdict = evaluateApproval({ policy, assessment, alwaysApproved: false, grantedByPlan });
    if (verdict.action === 'ask' && verdict.explicit !== true && (await this.#alwaysApproved(tool.name, context))) {
      verdict = evaluateApproval({ policy, assessment, alwaysApproved: true, grantedByPlan });
    }
    const position = { turn: context.position.turn, step: context.position.step };
    if (verdict.action === 'run') {
      if (verdict.by === 'plan' && policy !== 'auto') {
        await context.session.append({ type: 'approval/granted', ...position, payload: { toolCallId: call.id, by: 'plan', tool: tool.name } });
      }
      return undefined;
    }
    if (verdict.action === 'refuse') {
      return {
        outcome: 'refused',
        content:
          assessment?.level === 'dangerous'
            ? `refused: ${verdict.reason.replace(/[.]+$/, '')}. This is refused under every approval policy; do not retry it, find another way.`
            : `refused: ${verdict.reason.replace(/[.]+$/, '')}.`,
      };
    }
    const summary = summarize(tool, args);
    await context.session.append({
      type: 'approval/requested',
      ...position,
      payload: { toolCallId: call.id, tool: tool.name, args, policy: verdict.policy, reason: verdict.reason, summary },
    });
    const by = approverName(context.approver);
    const request = { runId: context.runId, nodeId: context.nodeId, toolCallId: call.id, tool: tool.name, args, summary, policy: verdict.policy };
    const answer = await askUntilCancelled(context.approver, request, context.signal);
    if (answer.decision !== 'no') {
      if (answer.recorded !== true) await context.session.append({
        type: 'approval/granted',
        ...position,
        payload: { toolCallId: call.id, by, tool: tool.name, ...(answer.decision === 'always' ? { always: true } : {}) },
      });
      return undefined;
    }
    if (answer.recorded !== true) await context.session.append({
      type: 'approval/denied',
      ...position,
      payload: { toolCallId: call.id, by, tool: tool.name, ...(answer.reason === undefined ? {} : { reason: answer.reason }) },
    });
    if (context.signal.aborted) return { outcome: 'aborted', content: 'aborted: the run was cancelled before this call ran' };
    const because = answer.reason === undefined ? '' : ` (${answer.reason})`;
    return {
      outcome: 'denied',
      content: `the user rejected this operation${because}: ${summary}. It was not run. Do not repeat it; adapt your approach, or finish and explain what is left.`,
      ...(answer.noOneToAsk === true ? { meta: { humanNextStep: withoutTerminalNextStep(tool, checkedSummary(summary, verdict.policy, assessment?.reason), context.runId), waitsFor: 'human-approval' } } : {}),
    };
  }

  /** An `always` answer for this tool anywhere in the run, read back from the log (so it survives a resume). */
  async #alwaysApproved(toolName: string, context: ToolExecutionContext): Promise<boolean> {
    const granted = await context.session.log.read({ types: ['approval/granted'] });
    return granted.some((event) => event.payload.always === true && event.payload.tool === toolName);
  }

  /** Runs the tool under its deadline and the run's signal; a late tool gets a grace period to clean up. */
  /** Writes to one file run one at a time (parallel calls of a response may name the same file). */
  async #runLocked(tool: Tool, args: unknown, call: ToolCallRequest, context: ToolExecutionContext): Promise<ToolOutput> {
    const path = (args as { path?: unknown } | null)?.path;
    if (tool.risk !== 'write' || typeof path !== 'string') return this.#run(tool, args, call, context);
    return this.#fileLocks.run(`${context.workspace}\0${posix.normalize(path)}`, () => this.#run(tool, args, call, context));
  }

  async #run(tool: Tool, args: unknown, call: ToolCallRequest, context: ToolExecutionContext): Promise<ToolOutput> {
    const timeoutMs = tool.timeoutFor?.(args) ?? this.#defaultTimeoutMs;
    const controller = new AbortController();
    let stopped: 'timeout' | 'aborted' | undefined;
    let wake: () => void = () => undefined;
    const interrupted = new Promise<void>((resolve) => (wake = resolve));
    const stop = (why: 'timeout' | 'aborted'): void => {
      if (stopped !== undefined) return;
      stopped = why;
      controller.abort(new Error(why === 'timeout' ? `timed out after ${timeoutMs} ms` : 'aborted'));
      wake();
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = (): void => stop('aborted');
    if (context.signal.aborted) onAbort();
    else context.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const toolContext = await this.#toolContext(call, context, controller.signal);
      const settled = tool.execute(args, toolContext).then(
        (output): Settled => ({ ok: true, output }),
        (error: unknown): Settled => ({ ok: false, error }),
      );
      const first = await Promise.race([settled, interrupted.then(() => undefined)]);
      if (first !== undefined && stopped === undefined) {
        if (first.ok) return first.output;
        throw first.error;
      }
      // Interrupted: give the tool a moment to stop what it started, and keep what it reports.
      const late = await Promise.race([settled, delay(TOOL_CLEANUP_GRACE_MS)]);
      return interruptedOutput(stopped ?? 'aborted', timeoutMs, late?.ok === true ? late.output : undefined);
    } finally {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
    }
  }

  async #toolContext(call: ToolCallRequest, context: ToolExecutionContext, signal: AbortSignal): Promise<ToolContext> {
    return {
      runId: context.runId,
      nodeId: context.nodeId,
      toolCallId: call.id,
      workspace: await this.#guard(context.workspace),
      signal,
      position: context.position,
      session: context.session,
      writeScope: context.writeScope,
    };
  }

  #guard(workspace: string): Promise<WorkspaceGuard> {
    let guard = this.#guards.get(workspace);
    if (guard === undefined) {
      guard = WorkspaceGuard.open(workspace);
      guard.catch(() => this.#guards.delete(workspace));
      this.#guards.set(workspace, guard);
    }
    return guard;
  }

  #visibleNames(context: ToolExecutionContext): string[] {
    const names = this.names();
    return context.allowedTools === undefined ? names : names.filter((name) => context.allowedTools!.includes(name));
  }

  /** The result with every uniform field (`withUniformToolMeta`), so `dagent tool --json` shows what the log stores. */
  #result(toolName: string, outcome: ToolOutcome, content: string, extra: FinishExtra & { durationMs: number }): ToolResult {
    const cut = truncateOutput(content, this.#limits);
    // A hook's words come after the tool's output and its truncation, so a long output never hides them.
    const truncated = extra.appendix === undefined ? cut : { ...cut, content: `${cut.content}\n${truncateOutput(extra.appendix, this.#limits).content}` };
    const toolMeta = extra.meta ?? {};
    const meta: ToolResultMeta = withUniformToolMeta<ToolResultMeta>(toolName, truncated.content, {
      ...toolMeta,
      outcome,
      truncated: truncated.truncated || toolMeta.truncated === true,
      originalLength: typeof toolMeta.originalLength === 'number' ? toolMeta.originalLength : truncated.originalLength,
      durationMs: Math.max(0, Math.round(extra.durationMs)),
      ...(extra.args === undefined ? {} : { args: extra.args }),
    });
    return { content: truncated.content, isError: extra.isError ?? outcome !== 'ok', meta };
  }
}

type Settled = { readonly ok: true; readonly output: ToolOutput } | { readonly ok: false; readonly error: unknown };

interface FinishExtra {
  readonly args?: unknown;
  /** Added after the (truncated) content: what `PostToolUse` hooks said. */
  readonly appendix?: string;
  readonly isError?: boolean;
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** The approver's answer; no when it fails, or as soon as the run is cancelled (whether or not the approver listens). */
async function askUntilCancelled(approver: Approver, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  const cancelled: ApprovalAnswer = { decision: 'no', reason: 'the run was cancelled' };
  if (signal.aborted) return cancelled;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<ApprovalAnswer>((resolve) => {
    onAbort = () => resolve(cancelled);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const answer = await Promise.race([approver.ask(request, signal), aborted]);
    return signal.aborted ? cancelled : answer;
  } catch (error) {
    return { decision: 'no', reason: `the approval prompt failed: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * What the approved plan declares: a write inside the node's `writes` (writes outside them are
 * refused before approval, by the write scope) or the command node's own command, byte for byte.
 */
function grantedByThePlan(tool: Tool, args: unknown, context: ToolExecutionContext): boolean {
  const grant = context.planGrant;
  if (grant === undefined) return false;
  if (tool.risk === 'write') return grant.edits === true && context.writeScope !== undefined;
  if (tool.name === 'run_command') return grant.command !== undefined && (args as { command?: unknown }).command === grant.command;
  return false;
}

function summarize(tool: Tool, args: unknown): string {
  if (tool.summarize !== undefined) return tool.summarize(args);
  const text = JSON.stringify(args) ?? '';
  return `${tool.name} ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

function interruptedOutput(why: 'timeout' | 'aborted', timeoutMs: number, late: ToolOutput | undefined): ToolOutput {
  const headline = why === 'timeout' ? `timeout: the call did not finish within ${timeoutMs} ms and was stopped` : 'aborted: the run was cancelled and the call was stopped';
  if (late === undefined) return { content: headline, outcome: why, isError: true };
  if (late.outcome === why) return { ...late, isError: true };
  return { ...late, content: `${headline}\n${late.content}`, outcome: why, isError: true };
}

function delay(milliseconds: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), milliseconds).unref());
}
