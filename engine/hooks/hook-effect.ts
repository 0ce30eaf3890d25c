import type { HookEventName, HookInput, HookOutcome, HookRecord } from './hook-runner.js';

/** Moments where exit 2 stops what comes next: the tool call, the node's start, the node's success. */
export const BLOCKING_HOOK_EVENTS: ReadonlySet<HookEventName> = new Set(['PreToolUse', 'NodeStart', 'NodeEnd']);

/**
 * What the run does with one hook's end (pure): exit 2 blocks where blocking means something (a
 * `NodeEnd` of a node that failed anyway has nothing to block); at `PostToolUse` exit 2's stderr
 * and exit 0's stdout go to the model with the tool result; elsewhere output is only logged.
 * Errors and timeouts never block.
 */
export function hookEffect(input: Pick<HookInput, 'event' | 'node'>, outcome: HookOutcome, stdout: string): HookRecord['effect'] {
  if (outcome === 'blocked') {
    if (input.event === 'PostToolUse') return 'context';
    if (input.event === 'NodeEnd' && input.node?.status === 'failed') return 'ignored';
    return BLOCKING_HOOK_EVENTS.has(input.event) ? 'blocked' : 'ignored';
  }
  if (outcome === 'ok' && input.event === 'PostToolUse' && stdout.trim() !== '') return 'context';
  return 'none';
}

/** How a hook's exit ends it: 0 ok, 2 blocked, anything else (or none) an error. */
export function hookOutcome(exitCode: number | null, timedOut: boolean): HookOutcome {
  if (timedOut) return 'timeout';
  if (exitCode === 0) return 'ok';
  if (exitCode === 2) return 'blocked';
  return 'error';
}

/**
 * Whether a hook's matcher takes this tool name or node id: a regular expression matched against
 * the whole subject (`edit_file|write_file`); absent, empty or `*` matches every one. Moments
 * without a subject (`RunEnd`) match every hook.
 */
export function hookMatches(matcher: string | undefined, subject: string | undefined): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*' || subject === undefined) return true;
  return new RegExp(`^(?:${matcher})$`).test(subject);
}
