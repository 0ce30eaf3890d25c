import type { HookRecord, HookRunner, ToolCallRequest, ToolExecutionContext } from '../engine/index.js';

/** One tool call as its hooks see it: the tool's name, the call, its checked arguments, the node's workspace. */
export interface HookedCall {
  readonly tool: string;
  readonly call: ToolCallRequest;
  readonly args: unknown;
  /** The node's workspace, links resolved: the hook's folder. */
  readonly workspace: string;
  readonly context: ToolExecutionContext;
}

/**
 * `PreToolUse` hooks of a call, after its arguments are checked and before it is approved or
 * run: the reason the model reads when one blocks it (exit 2), else undefined.
 */
export async function preToolUseHooks(hooks: HookRunner | undefined, hooked: HookedCall): Promise<string | undefined> {
  if (hooks?.matches('PreToolUse', hooked.tool) !== true) return undefined;
  const { call, context } = hooked;
  // A hook is a command: what it may change is found as a command's is.
  await context.writeScope?.beforeCommand?.();
  const input = { event: 'PreToolUse' as const, runId: context.runId, nodeId: context.nodeId, workspace: hooked.workspace, tool: hooked.tool, toolCallId: call.id, args: hooked.args };
  const verdict = await hooks.run(input, hookRecorder(context), context.signal);
  if (verdict.blocked === undefined) return undefined;
  return `blocked by a PreToolUse hook (\`${verdict.blocked.command}\`); the call was not run, and the same call would be blocked again. The hook said: ${verdict.blocked.reason}`;
}

/**
 * `PostToolUse` hooks of a call that ran: what they said for the model (stdout on exit 0,
 * stderr on exit 2), as sections to add after the tool's own output, else undefined.
 */
export async function postToolUseHooks(
  hooks: HookRunner | undefined,
  hooked: HookedCall,
  result: { readonly content: string; readonly isError: boolean; readonly outcome: string },
): Promise<string | undefined> {
  if (hooks?.matches('PostToolUse', hooked.tool) !== true) return undefined;
  const { call, context } = hooked;
  await context.writeScope?.beforeCommand?.();
  const input = { event: 'PostToolUse' as const, runId: context.runId, nodeId: context.nodeId, workspace: hooked.workspace, tool: hooked.tool, toolCallId: call.id, args: hooked.args, result };
  // The tool already ran: a cancel does not stop its hooks (a formatter finishes what it started; each has its time limit).
  const verdict = await hooks.run(input, hookRecorder(context), new AbortController().signal);
  const said = verdict.context.filter((entry) => entry.text !== '');
  return said.length === 0 ? undefined : said.map((entry) => `--- PostToolUse hook \`${entry.command}\` ---\n${entry.text}`).join('\n');
}

/** Appends each hook run to the node's log, at the call's step. */
function hookRecorder(context: ToolExecutionContext): (ran: HookRecord) => Promise<unknown> {
  return (ran) => context.session.append({ type: 'hook/ran', turn: context.position.turn, step: context.position.step, payload: ran });
}
