/** Configured hooks (config `hooks`), run in the commands' OS sandbox. */
export { createHookRunner, DEFAULT_HOOK_TIMEOUT_MS, type HookRunnerOptions } from './sandboxed-hook-runner.js';
export { runHookCommand, HOOK_OUTPUT_HEAD_BYTES, HOOK_OUTPUT_TAIL_BYTES, type HookCommand, type HookCommandEnd } from './run-hook-command.js';
