import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApprovalPolicy, ApprovalRequest } from '../../engine/index.js';
import {
  approvalPolicyFor,
  createAutoYesApprover,
  createNonInteractiveApprover,
  createTerminalApprover,
  evaluateApproval,
  parseApprovalAnswer,
  type ApprovalInput,
  type Assessment,
  type ToolRisk,
} from '../../tools/index.js';

const safe: Assessment = { level: 'safe', reason: 'read-only command' };
const risky: Assessment = { level: 'risky', reason: 'writes a file' };
const dangerous: Assessment = { level: 'dangerous', reason: 'sudo runs commands with elevated privileges' };

describe('evaluateApproval', () => {
  const remote: Assessment = { level: 'risky', reason: 'git push publishes commits to a remote', remote: 'git push publishes commits to a remote' };
  const unconfined: Assessment = { level: 'risky', reason: 'writes a file', unconfined: 'no OS sandbox on this machine; install bubblewrap, or pass --no-sandbox' };

  it.each([
    ['auto', remote, false, false, 'ask'],
    ['auto', remote, true, true, 'ask'],
    ['suggest', remote, true, true, 'ask'],
    ['auto', unconfined, false, false, 'refuse'],
    ['suggest', unconfined, false, false, 'ask'],
    ['auto', { ...dangerous }, false, true, 'refuse'],
    ['suggest', risky, false, true, 'run'],
    ['never', risky, false, true, 'run'],
  ] as const)('policy %s, assessment %j, always %s, granted by the plan %s → %s', (policy, assessment, alwaysApproved, grantedByPlan, action) => {
    expect(evaluateApproval({ policy, assessment, alwaysApproved, grantedByPlan }).action).toBe(action);
  });

  it('asks for a remote command with no default answer under auto, and records the grant of the plan as such', () => {
    expect(evaluateApproval({ policy: 'auto', assessment: remote, alwaysApproved: false })).toMatchObject({ action: 'ask', policy: 'never', explicit: true });
    expect(evaluateApproval({ policy: 'never', assessment: risky, alwaysApproved: false, grantedByPlan: true })).toEqual({ action: 'run', reason: 'declared in the approved plan', by: 'plan' });
  });

  const cases: [ApprovalPolicy, Assessment | undefined, boolean, string][] = [
    ['auto', undefined, false, 'run'],
    ['auto', risky, false, 'run'],
    ['auto', dangerous, false, 'refuse'],
    ['auto', dangerous, true, 'refuse'],
    ['suggest', dangerous, true, 'refuse'],
    ['never', dangerous, false, 'refuse'],
    ['suggest', safe, false, 'run'],
    ['never', safe, false, 'ask'],
    ['suggest', risky, false, 'ask'],
    ['suggest', undefined, false, 'ask'],
    ['never', undefined, false, 'ask'],
    ['suggest', undefined, true, 'run'],
    ['never', risky, true, 'run'],
  ];
  it.each(cases)('policy %s, assessment %j, always %s → %s', (policy, assessment, alwaysApproved, action) => {
    const input: ApprovalInput = { policy, assessment, alwaysApproved };
    expect(evaluateApproval(input).action).toBe(action);
  });

  it('carries the policy to ask with and the reason to refuse with', () => {
    expect(evaluateApproval({ policy: 'never', alwaysApproved: false })).toEqual({ action: 'ask', policy: 'never', reason: 'approval policy never' });
    expect(evaluateApproval({ policy: 'auto', assessment: dangerous, alwaysApproved: false })).toEqual({ action: 'refuse', reason: dangerous.reason });
  });
});

describe('approvalPolicyFor', () => {
  const cases: [string, ToolRisk, Parameters<typeof approvalPolicyFor>[1], ApprovalPolicy][] = [
    ['read_file', 'read', {}, 'auto'],
    ['read_file', 'read', { approval: 'never' }, 'auto'],
    ['read_file', 'read', { toolApproval: { read_file: 'suggest' } }, 'suggest'],
    ['write_file', 'write', {}, 'suggest'],
    ['run_command', 'command', {}, 'suggest'],
    ['run_command', 'command', { approval: 'auto' }, 'auto'],
    ['run_command', 'command', { approval: 'auto', toolApproval: { run_command: 'never' } }, 'never'],
    ['web_fetch', 'network', { approval: 'never' }, 'never'],
  ];
  it.each(cases)('%s (%s) with %j → %s', (name, risk, settings, expected) => {
    expect(approvalPolicyFor({ name, risk }, settings)).toBe(expected);
  });
});

describe('parseApprovalAnswer', () => {
  const cases: [string, ApprovalRequest['policy'], unknown][] = [
    ['', 'suggest', { decision: 'yes' }],
    ['', 'never', undefined],
    ['y', 'never', { decision: 'yes' }],
    ['YES', 'suggest', { decision: 'yes' }],
    ['a', 'never', { decision: 'always' }],
    ['always', 'suggest', { decision: 'always' }],
    ['n', 'suggest', { decision: 'no' }],
    ['no', 'never', { decision: 'no' }],
    ['n use the helper instead', 'suggest', { decision: 'no', reason: 'use the helper instead' }],
    ['No, edit b.ts first', 'never', { decision: 'no', reason: 'edit b.ts first' }],
    ['maybe', 'suggest', undefined],
    ['nope', 'suggest', undefined],
  ];
  it.each(cases)('%j under %s → %j', (line, policy, expected) => {
    expect(parseApprovalAnswer(line, policy)).toEqual(expected);
  });
});

function request(policy: ApprovalRequest['policy'], summary = 'write_file src/a.ts (3 lines)'): ApprovalRequest {
  return { runId: 'r-1', nodeId: 'edit-a', toolCallId: 'c1', tool: 'write_file', args: {}, summary, policy };
}

function terminal(): { input: PassThrough; output: PassThrough; printed: () => string; approver: ReturnType<typeof createTerminalApprover> } {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  return { input, output, printed: () => printed, approver: createTerminalApprover({ input, output }) };
}

describe('terminal approver', () => {
  const signal = new AbortController().signal;

  it('asks with the summary and takes Enter as yes under suggest', async () => {
    const { input, approver, printed } = terminal();
    const answer = approver.ask(request('suggest'), signal);
    input.write('\n');
    expect(await answer).toEqual({ decision: 'yes' });
    expect(printed()).toBe('\ndagent wants to write_file src/a.ts (3 lines) (node edit-a)\nAllow? [Y]es / [n]o / [a]lways for this run: ');
  });

  it('has no default under never and asks again', async () => {
    const { input, approver, printed } = terminal();
    const answer = approver.ask(request('never'), signal);
    input.write('\n');
    input.write('a\n');
    expect(await answer).toEqual({ decision: 'always' });
    expect(printed()).toContain('Please answer y, n or a (there is no default).\nAllow? yes / no / always for this run [y/n/a]: ');
  });

  it('asks parallel questions one at a time, keeping early input', async () => {
    const { input, approver } = terminal();
    input.write('n not now\ny\n');
    const first = approver.ask(request('suggest', 'first'), signal);
    const second = approver.ask(request('suggest', 'second'), signal);
    expect(await first).toEqual({ decision: 'no', reason: 'not now' });
    expect(await second).toEqual({ decision: 'yes' });
  });

  it('answers no when the input closes or the run is cancelled', async () => {
    const closed = terminal();
    const answer = closed.approver.ask(request('suggest'), signal);
    closed.input.end();
    expect(await answer).toEqual({ decision: 'no', reason: 'the terminal input closed' });
    const cancelled = terminal();
    const controller = new AbortController();
    const pending = cancelled.approver.ask(request('never'), controller.signal);
    controller.abort();
    expect(await pending).toEqual({ decision: 'no', reason: 'the run was cancelled while waiting for an answer' });
  });
});

describe('fixed approvers', () => {
  it('non-interactive says no with its reason, as no one there to ask; auto-yes says yes', async () => {
    const signal = new AbortController().signal;
    expect(createNonInteractiveApprover()).toMatchObject({ name: 'non-interactive', interactive: false });
    expect(await createNonInteractiveApprover().ask(request('suggest'), signal)).toEqual({ decision: 'no', reason: 'no terminal to ask', noOneToAsk: true });
    expect(await createAutoYesApprover().ask(request('never'), signal)).toEqual({ decision: 'yes' });
  });
});
