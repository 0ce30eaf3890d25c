export { NO_HOOK_VERDICT, type HookEventName, type HookInput, type HookOutcome, type HookRecord, type HookRunner, type HookSettings, type HookSpec, type HookVerdict } from './hook-runner.js';
export { BLOCKING_HOOK_EVENTS, hookEffect, hookMatches, hookOutcome } from './hook-effect.js';
