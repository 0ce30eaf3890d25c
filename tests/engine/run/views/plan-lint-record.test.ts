import { describe, expect, it } from 'vitest';
import type { LintFinding } from '../../../../engine/plan/lint-finding.js';
import { approvalAllowances, recordedLint } from '../../../../engine/run/views/plan-lint-record.js';
import type { EventDraft, SessionEvent } from '../../../../engine/session/event-types.js';

let seq = 0;
const event = (draft: EventDraft): SessionEvent =>
  ({ seq: ++seq, runId: 'r-1', nodeId: null, turn: 0, step: 0, type: draft.type, payload: draft.payload, createdAt: '2026-12-01T10:00:00.000Z' }) as SessionEvent;

const missing: LintFinding = { level: 'error', code: 'missing-file', message: 'read reads app/missing.py', nodeId: 'read', file: 'app/missing.py' };
const untested: LintFinding = { level: 'warning', code: 'untested-edit', message: 'edit has no test downstream', nodeId: 'edit' };

const created = (version: number, lint?: readonly LintFinding[]): SessionEvent =>
  event({ type: 'plan/created', payload: { version, plan: {}, hash: `h${version}`, ...(lint === undefined ? {} : { lint: lint.map((finding) => ({ ...finding })) }) } });
const amended = (version: number, lint?: readonly LintFinding[]): SessionEvent =>
  event({ type: 'plan/amended', payload: { version, reason: 'replanned', diff: {}, hash: `h${version}`, plan: {}, ...(lint === undefined ? {} : { lint: lint.map((finding) => ({ ...finding })) }) } });
const approved = (version: number, allowedLint?: readonly string[]): SessionEvent =>
  event({ type: 'plan/approved', payload: { version, hash: `h${version}`, ...(allowedLint === undefined ? {} : { allowedLint: [...allowedLint] }) } });

describe('recordedLint', () => {
  it.each<[string, readonly SessionEvent[], number, LintFinding[] | undefined]>([
    ['no events', [], 1, undefined],
    ['the findings of the version, optional fields kept', [created(1, [missing, untested])], 1, [missing, untested]],
    ['an empty record is a record', [created(1, [])], 1, []],
    ['a version stored without lint', [created(1)], 1, undefined],
    ['another version', [created(1, [missing])], 2, undefined],
    ['an amended version', [created(1, [missing]), amended(2, [untested])], 2, [untested]],
    ['the first version, after an amendment', [created(1, [missing]), amended(2, [untested])], 1, [missing]],
    ['the last event of the version wins, even without lint', [created(1, [missing]), amended(1)], 1, undefined],
    ['other events are ignored', [created(1, [missing]), approved(1, ['missing-file'])], 1, [missing]],
  ])('%s', (_name, events, version, expected) => {
    expect(recordedLint(events, version)).toEqual(expected);
  });
});

describe('approvalAllowances', () => {
  it.each<[string, readonly SessionEvent[], number, readonly string[]]>([
    ['not approved', [created(1, [missing])], 1, []],
    ['approved without --allow-lint', [approved(1)], 1, []],
    ['approved with --allow-lint', [approved(1, ['missing-file'])], 1, ['missing-file']],
    ['the approval of another version', [approved(1, ['missing-file'])], 2, []],
    ['the last approval of the version', [approved(1, ['missing-file']), approved(1, ['untested-edit', 'missing-file'])], 1, ['untested-edit', 'missing-file']],
  ])('%s', (_name, events, version, expected) => {
    expect(approvalAllowances(events, version)).toEqual(expected);
  });
});
