import { describe, expect, it } from 'vitest';
import { hookEffect, hookMatches, hookOutcome } from '../../../engine/hooks/index.js';

describe('hook rules', () => {
  it.each([
    [0, false, 'ok'],
    [2, false, 'blocked'],
    [1, false, 'error'],
    [127, false, 'error'],
    [null, false, 'error'],
    [null, true, 'timeout'],
  ] as const)('exit %s (timed out: %s) is %s', (exitCode, timedOut, outcome) => {
    expect(hookOutcome(exitCode, timedOut)).toBe(outcome);
  });

  it.each([
    ['PreToolUse', 'blocked', '', 'blocked'],
    ['NodeStart', 'blocked', '', 'blocked'],
    ['NodeEnd', 'blocked', '', 'blocked'],
    ['PostToolUse', 'blocked', '', 'context'],
    ['PostToolUse', 'ok', 'formatted a.ts', 'context'],
    ['PostToolUse', 'ok', '  \n', 'none'],
    ['PreToolUse', 'ok', 'anything', 'none'],
    ['PreCompact', 'blocked', '', 'ignored'],
    ['RunEnd', 'blocked', '', 'ignored'],
    ['PreToolUse', 'error', '', 'none'],
    ['PreToolUse', 'timeout', '', 'none'],
  ] as const)('%s ending %s (stdout %j) has effect %s', (event, outcome, stdout, effect) => {
    expect(hookEffect({ event }, outcome, stdout)).toBe(effect);
  });

  it('a NodeEnd hook cannot block a node that failed anyway', () => {
    expect(hookEffect({ event: 'NodeEnd', node: { status: 'failed', error: 'x' } }, 'blocked', '')).toBe('ignored');
  });

  it.each([
    [undefined, 'run_command', true],
    ['', 'run_command', true],
    ['*', 'edit_file', true],
    ['run_command', 'run_command', true],
    ['run_command', 'run_commands', false],
    ['run', 'run_command', false],
    ['edit_file|write_file', 'write_file', true],
    ['mcp__.*', 'mcp__github__create_issue', true],
    ['run_command', undefined, true],
  ] as const)('matcher %j takes %j: %s', (matcher, subject, matches) => {
    expect(hookMatches(matcher, subject)).toBe(matches);
  });
});
