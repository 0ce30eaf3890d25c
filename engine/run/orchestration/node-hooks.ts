import type { HookInput, HookRunner, HookVerdict } from '../../hooks/hook-runner.js';
import { NO_HOOK_VERDICT } from '../../hooks/hook-runner.js';
import type { EventLog } from '../../session/event-log.js';
import type { Session } from '../../session/session.js';

/** How a node attempt ended, as its hooks read it (the shape of `NodeAttemptResult`, kept here so this file needs nothing from the node runner). */
type AttemptEnd = { readonly status: 'succeeded'; readonly answer: string } | { readonly status: 'failed'; readonly error: string; readonly retryable: boolean };

export interface NodeHookContext {
  readonly hooks: HookRunner | undefined;
  readonly runId: string;
  readonly nodeId: string;
  /** The node's workspace (its worktree when isolated). */
  readonly workspace: string;
  readonly attempt: number;
  readonly session: Session;
  readonly signal: AbortSignal;
  /** The node's write scope's `beforeCommand`: a hook is a command, so what it may change is found as a command's is. */
  readonly beforeCommand?: () => Promise<void>;
}

/** Whether a hook may run in a node's workspace between its steps or after them (`PreCompact`, `NodeEnd`): what a step checkpoint would not hold. */
export function hooksBetweenSteps(hooks: HookRunner | undefined, nodeId: string): boolean {
  return hooks !== undefined && (hooks.matches('PreCompact', nodeId) || hooks.matches('NodeEnd', nodeId));
}

/** `NodeStart` hooks of a node attempt; a block (exit 2) fails the attempt before its model or command runs. */
export async function nodeStartHooks(context: NodeHookContext): Promise<Extract<AttemptEnd, { status: 'failed' }> | undefined> {
  const verdict = await runNodeHooks(context, { event: 'NodeStart', node: { attempt: context.attempt } });
  return verdict.blocked === undefined ? undefined : { status: 'failed' as const, error: `blocked by a NodeStart hook (\`${verdict.blocked.command}\`): ${verdict.blocked.reason}`, retryable: false };
}

/**
 * `NodeEnd` hooks, after the node's work and before its change is kept (merged or snapshotted):
 * a block (exit 2) turns a success into a failure whose error is the hook's reason, so its change
 * is not merged; after a failure the hooks still run, and exit 2 changes nothing.
 */
export async function nodeEndHooks<R extends AttemptEnd>(context: NodeHookContext, result: R): Promise<R | Extract<AttemptEnd, { status: 'failed' }>> {
  const node = result.status === 'succeeded' ? { attempt: context.attempt, status: result.status, answer: result.answer } : { attempt: context.attempt, status: result.status, error: result.error };
  const verdict = await runNodeHooks(context, { event: 'NodeEnd', node });
  if (verdict.blocked === undefined || result.status === 'failed') return result;
  return { status: 'failed' as const, error: `blocked by a NodeEnd hook (\`${verdict.blocked.command}\`): ${verdict.blocked.reason}`, retryable: false };
}

async function runNodeHooks(context: NodeHookContext, input: Pick<HookInput, 'event' | 'node' | 'compaction'>): Promise<HookVerdict> {
  const { hooks } = context;
  if (hooks === undefined || !hooks.matches(input.event, context.nodeId)) return NO_HOOK_VERDICT;
  // A hook's command may change the node's files: the attempt's marker (their boundary), if held, is stored first.
  await context.session.log.release(context.nodeId);
  await context.beforeCommand?.();
  return hooks.run(
    { ...input, runId: context.runId, nodeId: context.nodeId, workspace: context.workspace },
    (ran) => context.session.append({ type: 'hook/ran', payload: ran }),
    context.signal,
  );
}

/**
 * `RunEnd` hooks, once the run's outcome is known and before its end is recorded (so the hooks'
 * events come before `run/succeeded` or `run/failed`). Nothing to block: exit 2 is logged, and
 * a cancelled run still runs them (under their own time limits).
 */
export async function runEndHooks(runtime: { readonly hooks?: HookRunner | undefined; readonly workspace: string }, runId: string, status: string, log: EventLog): Promise<void> {
  const { hooks } = runtime;
  if (hooks === undefined || !hooks.matches('RunEnd')) return;
  await hooks.run(
    { event: 'RunEnd', runId, nodeId: null, workspace: runtime.workspace, run: { status } },
    (ran) => log.append({ type: 'hook/ran', nodeId: null, payload: ran }),
    new AbortController().signal,
  );
}

/** `PreCompact` hooks, just before a compaction of the node's conversation; they cannot stop it (exit 2 is logged). */
export function preCompactHooks(context: NodeHookContext): (trigger: 'threshold' | 'overflow') => Promise<void> {
  return async (trigger) => {
    await runNodeHooks(context, { event: 'PreCompact', node: { attempt: context.attempt }, compaction: { trigger } });
  };
}
