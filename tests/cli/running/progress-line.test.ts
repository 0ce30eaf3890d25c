import { describe, expect, it } from 'vitest';
import { progressLine } from '../../../cli/running/progress.js';
import { emptyRunView, type SessionEvent } from '../../../engine/index.js';

const event = (type: string, payload: Record<string, unknown>): SessionEvent =>
  ({ seq: 7, runId: 'r-1', nodeId: 'edit-a', turn: 1, step: 1, type, payload, createdAt: '2026-12-01T00:00:00.000Z' }) as unknown as SessionEvent;

/** What a progress line says about an approval: the tool it was for (not the call's id), and who answered. */
describe('progressLine for approvals', () => {
  it.each([
    ['approval/granted', { toolCallId: 'call_node_edit-a_1_1', by: 'plan', tool: 'edit_file' }, '✓ edit-a edit_file: approved by plan'],
    ['approval/granted', { toolCallId: 'call_7', by: 'user' }, '✓ edit-a call_7: approved by user'],
    ['approval/denied', { toolCallId: 'call_8', by: 'non-interactive', tool: 'run_command', reason: 'no terminal to ask' }, '⊘ edit-a run_command: denied (no terminal to ask)'],
    ['approval/denied', { toolCallId: 'call_9', by: 'dashboard (pid 4)' }, '⊘ edit-a call_9: denied (dashboard (pid 4))'],
  ])('%s %j', (type, payload, line) => {
    expect(progressLine(event(type, payload), emptyRunView('r-1'))).toBe(line);
  });
});

/** A hook that did not run fine is shown where it ran (docs/hooks.md: an error is shown and logged); one that ran fine makes no line. */
describe('progressLine for hooks', () => {
  const ran = (outcome: string, extra: Record<string, unknown> = {}): SessionEvent =>
    event('hook/ran', { event: 'PostToolUse', matcher: 'edit_file', command: 'npx prettier --write x.ts', tool: 'edit_file', outcome, exitCode: 1, durationMs: 120, stdout: '', stderr: '', ...extra });

  it.each([
    ['ok', {}, undefined],
    ['error', { stderr: 'prettier: not found\nmore' }, '⚑ PostToolUse hook failed (exit 1) at edit-a edit_file: npx prettier --write x.ts · prettier: not found'],
    ['timeout', { exitCode: null, durationMs: 20_000 }, '⚑ PostToolUse hook timed out after 20.0s at edit-a edit_file: npx prettier --write x.ts'],
    ['blocked', { exitCode: 2, stderr: 'publishing is for humans' }, '⚑ PostToolUse hook blocked at edit-a edit_file: npx prettier --write x.ts · publishing is for humans'],
  ])('%s', (outcome, extra, line) => {
    expect(progressLine(ran(outcome, extra), emptyRunView('r-1'))).toBe(line);
  });
});

/** A resumed node says what happened to what was in flight: the files put back, and which calls run again, by tool (a write too, not only reads). */
describe('progressLine for a resumed node', () => {
  const resumed = (extra: Record<string, unknown>): SessionEvent =>
    event('step/resumed', { attempt: 2, fromStep: 1, rerun: 'none', interrupted: [], restored: [], modelCalls: 2, saved: { input: 8000, output: 30, cacheHit: 0, reasoning: 0 }, savedCostUsd: 0, ...extra });

  it.each([
    [{ rerun: 'model-call' }, '⏵ edit-a resumed after step 1 · the model call in flight runs again · 2 model calls not repeated'],
    [{ rerun: 'tool-calls', toolCallIds: ['c2'], toolNames: ['edit_file'], restored: ['src/a.ts'] }, '⏵ edit-a resumed after step 1 · 1 file put back as after step 1 · edit_file in flight runs again · 2 model calls not repeated'],
    [{ rerun: 'tool-calls', toolCallIds: ['r2', 'w2'], toolNames: ['read_file', 'write_file'], interrupted: ['c2'] }, '⏵ edit-a resumed after step 1 · read_file, write_file in flight run again · 1 interrupted call not run again · 2 model calls not repeated'],
    [{ rerun: 'tool-calls', toolCallIds: ['r2'] }, '⏵ edit-a resumed after step 1 · 1 tool call in flight runs again · 2 model calls not repeated'],
    [{ modelCalls: 1 }, '⏵ edit-a resumed after step 1 · 1 model call not repeated'],
  ])('%j', (extra, line) => {
    expect(progressLine(resumed(extra), emptyRunView('r-1'))).toBe(line);
  });
});

/** A node's change outside its declared writes: where to see and undo it, and, without git, the nodes whose commands ran at the same time (it may be theirs). */
describe('progressLine for changes outside declared writes', () => {
  const recorded = '(recorded: `dagent diff` shows them, `dagent revert --node edit-a` undoes them)';
  it.each([
    [{ paths: ['big.txt'], writes: [] }, `⚠ edit-a changed files outside its declared writes: big.txt ${recorded}`],
    [
      { paths: ['big.txt'], writes: [], overlapped: ['build'] },
      `⚠ edit-a changed files outside its declared writes: big.txt ${recorded} · build ran commands at the same time, and without git dagent cannot tell which node's commands changed them: they may be build's`,
    ],
  ])('%j', (payload, line) => {
    expect(progressLine(event('writes/exceeded', payload), emptyRunView('r-1'))).toBe(line);
  });
});
