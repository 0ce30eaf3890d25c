import type { LintFinding } from '../../plan/lint-finding.js';
import type { SessionEvent } from '../../session/event-types.js';

/** The events a plan version's lint is recorded in. */
export const PLAN_LINT_EVENT_TYPES = ['plan/created', 'plan/amended'] as const;

/**
 * The findings recorded with a plan version: those of the last `plan/created` or `plan/amended`
 * of that version, or `undefined` when that event has none (a version stored without lint).
 * Other events are ignored, so any slice of the log that holds those events will do.
 */
export function recordedLint(events: readonly SessionEvent[], version: number): LintFinding[] | undefined {
  const stored = events.findLast(
    (event): event is SessionEvent<(typeof PLAN_LINT_EVENT_TYPES)[number]> => (event.type === 'plan/created' || event.type === 'plan/amended') && event.payload.version === version,
  );
  return stored?.payload.lint === undefined ? undefined : [...stored.payload.lint];
}

/** The lint codes the last approval of a plan version let through (`approve --allow-lint`); none when it was not approved. */
export function approvalAllowances(events: readonly SessionEvent[], version: number): readonly string[] {
  const approval = events.findLast((event): event is SessionEvent<'plan/approved'> => event.type === 'plan/approved' && event.payload.version === version);
  return approval?.payload.allowedLint ?? [];
}
