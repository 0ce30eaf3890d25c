import type { EventPayload } from '../session/event-types.js';
import type { HOOK_EVENT_NAMES, HOOK_OUTCOMES } from '../session/event-values.js';

/** A moment a hook runs at: `PreToolUse`, `PostToolUse`, `NodeStart`, `NodeEnd`, `PreCompact`, `RunEnd`. */
export type HookEventName = (typeof HOOK_EVENT_NAMES)[number];

export type HookOutcome = (typeof HOOK_OUTCOMES)[number];

/** One configured hook (config `hooks.<event>[]`). */
export interface HookSpec {
  /** A regular expression matched against the whole tool name (tool events) or node id (node events); every one when absent. */
  readonly matcher?: string;
  /** A shell command line, run in the OS sandbox with the node's workspace as its folder. */
  readonly command: string;
  readonly timeoutMs?: number;
}

export type HookSettings = Readonly<Partial<Record<HookEventName, readonly HookSpec[]>>>;

/** What a hook reads on stdin, as one JSON document. */
export interface HookInput {
  readonly event: HookEventName;
  readonly runId: string;
  readonly nodeId: string | null;
  /** The node's workspace (its own worktree under `isolation: worktree`); the hook runs in it. */
  readonly workspace: string;
  readonly tool?: string;
  readonly toolCallId?: string;
  /** The tool call's arguments (tool events). */
  readonly args?: unknown;
  /** What the tool returned (`PostToolUse`). */
  readonly result?: { readonly content: string; readonly isError: boolean; readonly outcome: string };
  /** The node (node events): its attempt, and at `NodeEnd` how it ended. */
  readonly node?: { readonly attempt?: number; readonly status?: 'succeeded' | 'failed'; readonly answer?: string; readonly error?: string };
  /** What started the compaction (`PreCompact`). */
  readonly compaction?: { readonly trigger: 'threshold' | 'overflow' };
  /** How the run ended (`RunEnd`). */
  readonly run?: { readonly status: string };
}

/** The `hook/ran` payload: one hook command's run. */
export type HookRecord = EventPayload<'hook/ran'>;

export interface HookVerdict {
  /** A hook exited 2 where that blocks: its stderr (or a default) is the reason. */
  readonly blocked?: { readonly reason: string; readonly command: string };
  /** `PostToolUse`: what hooks said for the model (stdout of exit 0, stderr of exit 2), in order. */
  readonly context: readonly { readonly command: string; readonly text: string }[];
}

export const NO_HOOK_VERDICT: HookVerdict = { context: [] };

/**
 * Runs the configured hooks of one moment. `tools/` implements it with the OS sandbox; the
 * engine and the tool runtime only call it. Each hook run is handed to `record` (which appends
 * `hook/ran`) before the verdict returns. Never throws for a hook's own failure.
 */
export interface HookRunner {
  /** Whether any hook is configured for this moment and tool or node (so the caller can skip building the input). */
  matches(event: HookEventName, subject?: string): boolean;
  run(input: HookInput, record: (ran: HookRecord) => Promise<unknown>, signal: AbortSignal): Promise<HookVerdict>;
}
