/** Why a node agent stopped: a closed set, never an escaped exception. */
export type EndReason = 'done' | 'max_steps' | 'token_budget' | 'loop_detected' | 'aborted' | 'context_overflow' | 'error';

export const END_REASONS: readonly EndReason[] = ['done', 'max_steps', 'token_budget', 'loop_detected', 'aborted', 'context_overflow', 'error'];
