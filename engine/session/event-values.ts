/**
 * The closed value sets that events carry, listed once. The log's schemas validate them with
 * `z.enum`, and the modules that own each lifecycle derive their union types from these lists
 * (the lists live here, below every writer, so the session folder imports none of them).
 */

/** Why a node agent stopped: a closed set, never an escaped exception. */
export const END_REASONS = ['done', 'max_steps', 'token_budget', 'loop_detected', 'aborted', 'context_overflow', 'error'] as const;

/** How a tool call ended. Only `ok` is a success; every other outcome is shown to the model as an error it can react to. */
export const TOOL_OUTCOMES = ['ok', 'error', 'invalid-args', 'unknown-tool', 'not-allowed', 'denied', 'refused', 'timeout', 'aborted', 'interrupted'] as const;

/** What started a compaction. */
export const COMPACTION_TRIGGERS = ['threshold', 'overflow', 'background', 'manual'] as const;

/** The two stages of a compaction: pruning old tool output, then summarizing a region. */
export const COMPACTION_STAGES = ['prune', 'summary'] as const;

/** Whose memory it is: the user's (across projects) or this project's. */
export const MEMORY_SCOPES = ['user', 'project'] as const;

/** What kind of fact a memory is. */
export const MEMORY_KINDS = ['preference', 'convention', 'lesson', 'decision', 'fact'] as const;

/** How a run works: a plan DAG, one ReAct agent, a team of roles, or a single tool call. */
export const RUN_MODES = ['plan', 'react', 'team', 'tool'] as const;

/** When a risky tool asks a human: never (`auto`), with a default yes (`suggest`), always (`never`). */
export const APPROVAL_POLICIES = ['auto', 'suggest', 'never'] as const;


/** What a failed node waits for outside the run: a human to approve what it was denied for want of a terminal. */
export const NODE_WAITS_FOR = ['human-approval'] as const;

/** Why an agent's model call went to the next model of its list (`model/switched`). */
export const FALLBACK_REASONS = ['retries-exhausted', 'rate-limited', 'unknown-model', 'context-overflow'] as const;

/** The moments a configured hook runs at (config `hooks`), named as users know them from Claude Code. */
export const HOOK_EVENT_NAMES = ['PreToolUse', 'PostToolUse', 'NodeStart', 'NodeEnd', 'PreCompact', 'RunEnd'] as const;

/** How one hook run ended: exit 0 (`ok`), exit 2 (`blocked`), any other exit or no start (`error`), or its time ran out (`timeout`). */
export const HOOK_OUTCOMES = ['ok', 'blocked', 'error', 'timeout'] as const;
