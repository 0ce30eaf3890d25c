import { z } from 'zod';
import { defineEvent } from './define-event.js';
import { HOOK_EVENT_NAMES, HOOK_OUTCOMES } from './event-values.js';

/** The events of configured hooks (config `hooks`): one per hook command run. */
export const HOOK_EVENTS = {
  /**
   * One hook command ran: at which moment (`event`), for which tool call, what it printed (each
   * stream cut to a few KB) and how it ended. `effect` says what the run did with it: `none`,
   * `blocked` (the tool did not run, or the node failed), `context` (its output was added to the
   * tool result), `ignored` (exit 2 where nothing can be blocked).
   */
  'hook/ran': defineEvent(2, () => hookRanV1().extend({
    /** v2: the folder it ran in (absolute): the node's workspace, its worktree under `isolation: worktree`; the only place a sandboxed hook can write. */
    folder: z.string().optional(),
  }), {
    1: { payload: hookRanV1, upgrade: (payload) => payload },
  }),
} as const;

/** `hook/ran` as version 1 wrote it. */
function hookRanV1() {
  return z.strictObject({
    event: z.enum(HOOK_EVENT_NAMES),
    matcher: z.string().optional(),
    command: z.string(),
    toolCallId: z.string().optional(),
    tool: z.string().optional(),
    outcome: z.enum(HOOK_OUTCOMES),
    exitCode: z.number().int().nullable(),
    durationMs: z.number().nonnegative(),
    stdout: z.string(),
    stderr: z.string(),
    /** Where it ran: the sandbox's kind (`bubblewrap`, `seatbelt`) or `none`. */
    sandbox: z.string(),
    effect: z.enum(['none', 'blocked', 'context', 'ignored']),
    /** Why a hook is an error (no start, a timeout), in one line. */
    error: z.string().optional(),
  });
}
