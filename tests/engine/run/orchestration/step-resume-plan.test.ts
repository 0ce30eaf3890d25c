import { describe, expect, it } from 'vitest';
import { planStepResume, settleWrites, type StepResumeEvent } from '../../../../engine/run/orchestration/step-resume-plan.js';

/**
 * How a node attempt that its process left running goes on: which step it keeps, where its files go,
 * and which of the calls in flight run again — one table, read from the log alone.
 */

const RISKS: Record<string, string> = { read_file: 'read', grep: 'read', write_file: 'write', run_command: 'command' };
const riskOf = (name: string): string | undefined => RISKS[name];

let seq = 0;
function event(type: StepResumeEvent['type'], step: number, payload: unknown): StepResumeEvent {
  seq += 1;
  return { seq, runId: 'r-1', nodeId: 'n', turn: 1, step, type, payload, createdAt: '2026-12-03T00:00:00.000Z' } as StepResumeEvent;
}
const answer = (step: number, calls: readonly [string, string][], usage = { input: 100, output: 10, cacheHit: 0, reasoning: 0 }): StepResumeEvent =>
  event('assistant/message', step, { content: '', toolCalls: calls.map(([id, name]) => ({ id, name, args: {} })), finishReason: calls.length > 0 ? 'tool-calls' : 'stop', provider: 'p', model: 'm', usage, costUsd: 0.01 });
const started = (step: number, id: string, name: string): StepResumeEvent => event('tool/call', step, { toolCallId: id, name, args: {} });
const result = (step: number, id: string, name: string): StepResumeEvent =>
  event('tool/result', step, { toolCallId: id, name, content: 'ok', isError: false, meta: { outcome: 'ok', truncated: false, originalLength: 2 } });
/** The result the run's cancel or pause gives a call it stops: no result of the call's own. */
const stopped = (step: number, id: string, name: string): StepResumeEvent =>
  event('tool/result', step, { toolCallId: id, name, content: 'aborted: the run was cancelled and the call was stopped', isError: true, meta: { outcome: 'aborted', truncated: false, originalLength: 55 } });
const checkpoint = (step: number, tree: string): StepResumeEvent => event('step/checkpointed', step, { attempt: 1, boundary: tree });
const request = (step: number): StepResumeEvent => event('request/header', step, {});

/** Two completed steps: a write (checkpointed) and a read (not). */
const twoSteps = (): StepResumeEvent[] => [
  request(1), answer(1, [['w1', 'write_file']]), started(1, 'w1', 'write_file'), result(1, 'w1', 'write_file'), checkpoint(1, 'after-1'),
  request(2), answer(2, [['r2', 'read_file']]), started(2, 'r2', 'read_file'), result(2, 'r2', 'read_file'),
];

describe('planStepResume', () => {
  it('starts over when no model call had answered', () => {
    expect(planStepResume([request(1)], riskOf)).toEqual({ kind: 'restart' });
  });

  it('the model call after a completed step was in flight: files back to the last checkpoint, that call made again', () => {
    const plan = planStepResume([...twoSteps(), request(3)], riskOf);
    expect(plan).toMatchObject({ kind: 'resume', fromStep: 2, rerun: 'model-call', files: { kind: 'checkpoint', step: 1, checkpoint: 'after-1' }, checkpointNow: false, modelCalls: 2 });
    expect(plan).toMatchObject({ saved: { input: 200, output: 20 }, savedCostUsd: 0.02 });
  });

  it('stopped between a write step\'s last result and its checkpoint: the files are as it left them, the checkpoint is taken now', () => {
    const events = [request(1), answer(1, [['w1', 'write_file']]), started(1, 'w1', 'write_file'), result(1, 'w1', 'write_file')];
    expect(planStepResume(events, riskOf)).toMatchObject({ fromStep: 1, files: { kind: 'as-left' }, checkpointNow: true, rerun: 'none' });
  });

  it('tool calls in flight, nothing of the step that changes files done: back to the step before; reads, unstarted calls and file writes run again, a started command is interrupted', () => {
    const events = [
      ...twoSteps(),
      request(3),
      answer(3, [['r3', 'grep'], ['c3', 'run_command'], ['w3', 'write_file'], ['g3', 'read_file']]),
      started(3, 'r3', 'grep'),
      started(3, 'c3', 'run_command'),
      started(3, 'w3', 'write_file'),
      result(3, 'g3', 'read_file'),
    ];
    expect(planStepResume(events, riskOf)).toMatchObject({
      kind: 'resume',
      fromStep: 2,
      files: { kind: 'checkpoint', step: 1 },
      rerun: 'tool-calls',
      rerunCalls: ['r3', 'w3'],
      rerunWrites: ['w3'],
      interrupted: ['c3'],
      modelCalls: 3,
    });
  });

  it('a write in flight whose files could not all go back (no git) is interrupted instead of running twice', () => {
    const events = [answer(1, [['w1', 'write_file'], ['r1', 'read_file']]), started(1, 'w1', 'write_file')];
    const plan = planStepResume(events, riskOf);
    if (plan.kind !== 'resume') throw new Error('expected a resume');
    expect(plan).toMatchObject({ files: { kind: 'start' }, rerunCalls: ['w1', 'r1'], interrupted: [] });
    expect(settleWrites(plan, ['out/a.txt'])).toMatchObject({ rerunCalls: ['r1'], rerunWrites: [], interrupted: ['w1'], rerun: 'tool-calls' });
    expect(settleWrites(plan, [])).toBe(plan);
  });

  it('a write of the step completed: undoing it would contradict its result, so the files stay as left', () => {
    const events = [
      ...twoSteps(),
      answer(3, [['w3', 'write_file'], ['c3', 'run_command'], ['w4', 'edit_file']]),
      started(3, 'w3', 'write_file'),
      result(3, 'w3', 'write_file'),
      started(3, 'c3', 'run_command'),
      started(3, 'w4', 'write_file'),
    ];
    expect(planStepResume(events, riskOf)).toMatchObject({ fromStep: 2, files: { kind: 'as-left' }, rerun: 'none', rerunCalls: [], interrupted: ['c3', 'w4'] });
  });

  it('a call in flight in the first step goes back to where the node began', () => {
    const events = [answer(1, [['c1', 'run_command']]), started(1, 'c1', 'run_command')];
    expect(planStepResume(events, riskOf)).toMatchObject({ fromStep: 0, files: { kind: 'start' }, interrupted: ['c1'] });
  });

  it('a tool the runtime does not know counts as one that may change files', () => {
    const events = [answer(1, [['x1', 'mcp_deploy']]), started(1, 'x1', 'mcp_deploy')];
    expect(planStepResume(events, riskOf)).toMatchObject({ interrupted: ['x1'], rerunCalls: [] });
  });

  it('the final answer was recorded: nothing runs again', () => {
    const events = [...twoSteps(), request(3), answer(3, [])];
    expect(planStepResume(events, riskOf)).toMatchObject({ fromStep: 3, rerun: 'none', files: { kind: 'checkpoint', step: 1 }, modelCalls: 3 });
  });
});

/** An attempt the run's cancel or pause stopped goes on by the same rules: what the stop aborted was in flight. */
describe('planStepResume after the run stopped the attempt', () => {
  it('calls the stop aborted are in flight: back to the step before, the read and the write run again, the command is interrupted', () => {
    const events = [
      ...twoSteps(),
      request(3),
      answer(3, [['r3', 'read_file'], ['w3', 'write_file'], ['c3', 'run_command']]),
      started(3, 'r3', 'read_file'),
      started(3, 'w3', 'write_file'),
      started(3, 'c3', 'run_command'),
      stopped(3, 'r3', 'read_file'),
      stopped(3, 'w3', 'write_file'),
      stopped(3, 'c3', 'run_command'),
      // The run's stop let the step end: its checkpoint holds the files as the stopped calls left them.
      checkpoint(3, 'after-stop'),
    ];
    expect(planStepResume(events, riskOf)).toMatchObject({ fromStep: 2, files: { kind: 'checkpoint', step: 1, checkpoint: 'after-1' }, rerun: 'tool-calls', rerunCalls: ['r3', 'w3'], rerunWrites: ['w3'], interrupted: ['c3'] });
  });

  it('a write of the step completed before the stop: the files stay as left, which the checkpoint taken at the stop holds', () => {
    const events = [...twoSteps(), answer(3, [['w3', 'write_file'], ['c3', 'run_command']]), started(3, 'w3', 'write_file'), result(3, 'w3', 'write_file'), started(3, 'c3', 'run_command'), stopped(3, 'c3', 'run_command'), checkpoint(3, 'after-stop')];
    expect(planStepResume(events, riskOf)).toMatchObject({ fromStep: 2, files: { kind: 'as-left', checkpoint: 'after-stop' }, rerunCalls: [], interrupted: ['c3'] });
  });

  it('a stopped call that ran again when the attempt went on has its result: stopped again later, it is not in flight', () => {
    const events = [...twoSteps(), answer(3, [['r3', 'read_file']]), started(3, 'r3', 'read_file'), stopped(3, 'r3', 'read_file'), started(3, 'r3', 'read_file'), result(3, 'r3', 'read_file'), request(4)];
    expect(planStepResume(events, riskOf)).toMatchObject({ fromStep: 3, rerun: 'model-call', rerunCalls: [] });
  });

  it('stopped before its next model call was sent (a budget refusal): nothing was in flight', () => {
    expect(planStepResume(twoSteps(), riskOf)).toMatchObject({ fromStep: 2, rerun: 'none', files: { kind: 'checkpoint', step: 1 }, modelCalls: 2 });
  });
});
