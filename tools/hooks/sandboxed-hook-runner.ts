import { existsSync } from 'node:fs';
import { hookEffect, hookMatches, hookOutcome, type HookEventName, type HookInput, type HookRecord, type HookRunner, type HookSettings, type HookSpec, type HookVerdict } from '../../engine/index.js';
import type { CommandConfinement } from '../run-command.js';
import { scrubEnvironment } from '../sandbox/index.js';
import { runHookCommand } from './run-hook-command.js';

/** A hook's time limit unless it sets `timeoutMs`. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

export interface HookRunnerOptions {
  readonly hooks: HookSettings;
  /** The commands' confinement (the one `run_command` uses), found on first use. */
  readonly confinement: () => CommandConfinement;
  /** Where a hook's environment comes from; only allow-listed variables pass (as for commands). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly allowEnv?: readonly string[];
  readonly shell?: string;
}

/**
 * The hooks of the config, run one after another in the order configured, each in the OS sandbox
 * with the node's workspace as its folder and the event as JSON on stdin (`runHookCommand`). Every
 * run is recorded; the first hook that blocks stops the rest of that moment's hooks.
 */
export function createHookRunner(options: HookRunnerOptions): HookRunner {
  const shell = options.shell ?? (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh');
  const env = scrubEnvironment(options.env ?? process.env, options.allowEnv);
  const hooksOf = (event: HookEventName, subject: string | undefined): readonly HookSpec[] =>
    (options.hooks[event] ?? []).filter((hook) => hookMatches(hook.matcher, subject));
  return {
    matches: (event, subject) => hooksOf(event, subject).length > 0,
    async run(input, record, signal) {
      const context: { command: string; text: string }[] = [];
      for (const hook of hooksOf(input.event, subjectOf(input))) {
        if (signal.aborted) break;
        const end = await runHookCommand({
          command: hook.command,
          workspace: input.workspace,
          stdin: JSON.stringify(input),
          timeoutMs: hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
          confinement: options.confinement(),
          shell,
          env: { ...env, DAGENT_HOOK_EVENT: input.event, DAGENT_RUN_ID: input.runId, ...(input.nodeId === null ? {} : { DAGENT_NODE_ID: input.nodeId }) },
          signal,
        });
        const outcome = hookOutcome(end.exitCode, end.timedOut);
        const effect = hookEffect(input, outcome, end.stdout);
        const ran: HookRecord = {
          event: input.event,
          ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
          command: hook.command,
          ...(input.toolCallId === undefined ? {} : { toolCallId: input.toolCallId }),
          ...(input.tool === undefined ? {} : { tool: input.tool }),
          outcome,
          exitCode: end.exitCode,
          durationMs: end.durationMs,
          stdout: end.stdout,
          stderr: end.stderr,
          sandbox: end.sandbox,
          folder: input.workspace,
          effect,
          ...(end.error === undefined ? {} : { error: end.error }),
        };
        await record(ran);
        if (effect === 'blocked') return { blocked: { reason: blockReason(ran), command: hook.command }, context };
        if (effect === 'context') context.push({ command: hook.command, text: (outcome === 'blocked' ? end.stderr : end.stdout).trim() });
      }
      return context.length === 0 ? { context: [] } : ({ context } satisfies HookVerdict);
    },
  };
}

/** Tool events match on the tool's name, node events on the node's id; `RunEnd` has no subject. */
function subjectOf(input: HookInput): string | undefined {
  if (input.event === 'PreToolUse' || input.event === 'PostToolUse') return input.tool;
  return input.nodeId ?? undefined;
}

function blockReason(ran: HookRecord): string {
  const stderr = ran.stderr.trim();
  return stderr === '' ? `the hook \`${ran.command}\` exited 2 and gave no reason` : stderr;
}
