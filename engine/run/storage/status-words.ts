/**
 * Why a run or node is not what a command needs, in words: "it failed", "it was cancelled", "it
 * has not started" (a status read out as "it is failed" did not say it).
 */
export function statusWords(status: string): string {
  return STATUS_WORDS[status] ?? `it is ${status.replaceAll('_', ' ')}`;
}

const STATUS_WORDS: Readonly<Record<string, string>> = {
  pending: 'it has not started',
  ready: 'it has not started',
  planning: 'it is being planned',
  awaiting_approval: 'its plan awaits approval',
  approved: 'its plan is approved and has not run',
  succeeded: 'it succeeded',
  failed: 'it failed',
  cancelled: 'it was cancelled',
  rejected: 'its plan was rejected',
  skipped: 'it was skipped',
};
