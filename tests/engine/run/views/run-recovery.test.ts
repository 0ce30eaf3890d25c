import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../engine/session/event-types.js';
import { RunMemory, recoverRun } from '../../../../engine/run/views/run-recovery.js';

let seq = 0;
function event<T extends SessionEvent['type']>(type: T, nodeId: string | null, payload: SessionEvent<T>['payload']): SessionEvent {
  seq += 1;
  return { seq, runId: 'r-1', nodeId, turn: 1, step: 1, type, payload, createdAt: '2026-01-01T00:00:00.000Z' } as unknown as SessionEvent;
}

describe('what a run log keeps for whoever carries the run on', () => {
  it('hands over each succeeded node in the order it succeeded, with its patch, and each node’s last boundary', () => {
    const memory = new RunMemory().add([
      event('node/snapshotted', 'b', { attempt: 1, boundary: 'b-first' }),
      event('node/snapshotted', 'a', { attempt: 1, boundary: 'a-first' }),
      event('attempt/finished', 'a', { attempt: 1, token: 1, worker: 'h/1', outcome: 'succeeded', answer: 'done a', filesChanged: ['a.ts'], patch: 'diff a' }),
      event('node/succeeded', 'a', { result: 'done a', filesChanged: ['a.ts'] }),
      event('node/snapshotted', 'b', { attempt: 2, boundary: 'b-second' }),
      event('node/succeeded', 'b', { result: 'done b' }),
    ]);

    expect([...memory.completed.values()]).toEqual([
      { nodeId: 'a', result: 'done a', filesChanged: ['a.ts'] },
      { nodeId: 'b', result: 'done b', filesChanged: [] },
    ]);
    expect(Object.fromEntries(memory.patches)).toEqual({ a: 'diff a' });
    expect(Object.fromEntries(memory.boundaries)).toEqual({ a: 'a-first', b: 'b-second' });
  });

  it('counts only the replans that amended the plan, also when events arrive one append at a time', () => {
    const memory = new RunMemory();
    memory.add([event('replan/finished', null, { outcome: 'amended', version: 2 })]);
    memory.add([event('replan/finished', null, { outcome: 'gave-up', reason: 'the limit of 1 replans is reached' })]);
    memory.add([event('replan/finished', null, { outcome: 'failed', error: 'no planner' }), event('replan/finished', null, { outcome: 'amended', version: 3 })]);

    expect(memory.replans).toBe(2);
  });

  it('recovers node states, unplanned work and each node’s usage in one fold', () => {
    const recovered = recoverRun('r-1', [
      event('node/started', 'a', { attempt: 1 }),
      event('assistant/message', 'a', { content: 'hi', toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'm', usage: { input: 10, output: 5, cacheHit: 0, reasoning: 0 }, costUsd: 0.5 }),
      event('node/failed', 'a', { error: 'boom', attempt: 1 }),
      event('work/reported', 'a', { title: 'Update docs', files: ['docs/a.md'], reason: 'the API changed' }),
    ]);

    expect(recovered.nodes.get('a')).toEqual({ status: 'failed', attempts: 1 });
    expect(recovered.unplanned.map((work) => work.trigger.title)).toEqual(['Update docs']);
    expect(recovered.usage.nodes.get('a')).toMatchObject({ tokens: { input: 10, output: 5 }, costUsd: 0.5 });
  });
});

/** Which attempt of a node goes on from its last step on resume, rather than starting over. */
describe('RunMemory.attemptToGoOn', () => {
  const answered = (nodeId: string): SessionEvent => event('assistant/message', nodeId, { content: '', toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'm' });
  const began = (nodeId: string, attempt = 1): SessionEvent[] => [event('node/started', nodeId, { attempt }), event('node/snapshotted', nodeId, { attempt, boundary: `${nodeId}-${attempt}` })];
  const runStarted = (planVersion: number): SessionEvent => event('run/started', null, { pid: 1, host: 'h', planVersion });

  it('an attempt whose process died, and one the run stopped (a cancel, a pause), under the plan version it ran under', () => {
    const memory = new RunMemory().add([runStarted(1), ...began('killed'), answered('killed'), ...began('stopped'), answered('stopped'), event('node/cancelled', 'stopped', { reason: 'run cancelled' })]);

    expect(memory.attemptToGoOn('killed', 1)).toMatchObject({ attempt: 1, boundary: 'killed-1', modelCalls: 1 });
    expect(memory.attemptToGoOn('stopped', 1)).toMatchObject({ attempt: 1, boundary: 'stopped-1', modelCalls: 1 });
    expect(memory.openAttempt('stopped'), 'the stopped attempt is not open: workers start it over').toBeUndefined();
    expect(memory.attemptToGoOn('stopped', 2), 'a plan version stored since (edit, import, rerun): it starts over').toBeUndefined();
  });

  it('a version approved while the run ran (a replan or a delegation it took up) is the one its attempt ran under', () => {
    const memory = new RunMemory().add([runStarted(1), ...began('a'), answered('a'), event('plan/approved', null, { version: 2, hash: 'h2' }), event('node/cancelled', 'a', { reason: 'run cancelled' })]);

    expect(memory.attemptToGoOn('a', 2)).toMatchObject({ attempt: 1 });
    expect(memory.attemptToGoOn('a', 1)).toBeUndefined();
  });

  it('a replanned version the run paused to have reviewed is a new version: approved, the node starts over', () => {
    const memory = new RunMemory().add([runStarted(1), ...began('b'), answered('b'), event('plan/amended', null, { version: 2, reason: 'replan', diff: {}, hash: 'h2', plan: {} }), event('node/cancelled', 'b', { reason: 'run cancelled' })]);

    expect(memory.attemptToGoOn('b', 2)).toBeUndefined();
  });

  it('forgets it when the node failed, was reset (rerun), or began a new attempt', () => {
    const stop = (nodeId: string): SessionEvent[] => [...began(nodeId), answered(nodeId), event('node/cancelled', nodeId, { reason: 'run cancelled' })];
    const memory = new RunMemory().add([
      runStarted(1),
      ...stop('failed'),
      event('node/failed', 'failed', { error: 'boom', attempt: 2 }),
      ...stop('reset'),
      event('node/reset', 'reset', { cause: 'rerun', planVersion: 1, reason: 'rerun from reset', reverted: true }),
      ...stop('fresh'),
      ...began('fresh', 2),
    ]);

    expect(memory.attemptToGoOn('failed', 1)).toBeUndefined();
    expect(memory.attemptToGoOn('reset', 1)).toBeUndefined();
    expect(memory.attemptToGoOn('fresh', 1)).toMatchObject({ attempt: 2, modelCalls: 0 });
  });

  it('an attempt that went on from a stopped one (no marker of its own) and is stopped again goes on from the same surface', () => {
    const memory = new RunMemory().add([runStarted(1), ...began('a'), answered('a'), event('node/cancelled', 'a', { reason: 'run cancelled' }), runStarted(1), event('node/started', 'a', { attempt: 2 }), answered('a'), event('node/cancelled', 'a', { reason: 'run cancelled' })]);

    expect(memory.attemptToGoOn('a', 1)).toMatchObject({ attempt: 1, boundary: 'a-1' });
  });

  it.each(['shared', 'clone'] as const)('an attempt a worker ended (%s mode: files and checkpoints in the shared copy, or patches of its clone in the log), before or after the stop is recorded, goes on, but only on a worker', (mode) => {
    const finished = (nodeId: string): SessionEvent => event('attempt/finished', nodeId, { attempt: 1, token: 1, worker: 'h/1', outcome: 'failed', error: 'aborted', retryable: false });
    const cancelled = (nodeId: string): SessionEvent => event('node/cancelled', nodeId, { reason: 'run cancelled' });
    const memory = new RunMemory().add([runStarted(1), event('dispatch/started', null, { mode }), ...began('before'), answered('before'), finished('before'), cancelled('before'), ...began('after'), answered('after'), cancelled('after'), finished('after')]);

    expect(memory.attemptToGoOn('before', 1, { onWorkers: true })).toMatchObject({ attempt: 1, boundary: 'before-1' });
    expect(memory.attemptToGoOn('after', 1, { onWorkers: true })).toMatchObject({ attempt: 1, boundary: 'after-1' });
    // Its boundary and checkpoints are the shared working copy's (or a clone's), not those of a run's own worktrees.
    expect(memory.attemptToGoOn('before', 1)).toBeUndefined();
    expect(memory.attemptToGoOn('after', 1)).toBeUndefined();
  });

  it('an attempt its worker had answered before the stop starts over: its outcome was the worker\'s to give', () => {
    const finished = event('attempt/finished', 'done', { attempt: 1, token: 1, worker: 'h/1', outcome: 'succeeded', answer: 'done' });
    const answeredFirst = new RunMemory().add([runStarted(1), event('dispatch/started', null, { mode: 'shared' }), ...began('done'), answered('done'), finished, event('node/cancelled', 'done', { reason: 'run cancelled' })]);

    expect(answeredFirst.attemptToGoOn('done', 1, { onWorkers: true })).toBeUndefined();
  });

  it('an attempt whose process died starts over under a version that changed its instructions, and goes on under one that did not', () => {
    const node = (id: string, instructions: string) => ({ id, kind: 'edit', title: id, instructions, reads: [], writes: [`${id}.ts`], dependsOn: [] });
    const plan = (aSays: string) => ({ goal: 'g', nodes: [node('a', aSays), node('b', 'Change b.')] });
    const memory = new RunMemory().add([
      event('plan/created', null, { version: 1, plan: plan('Return 10.'), hash: 'h1' }),
      runStarted(1),
      ...began('a'),
      answered('a'),
      ...began('b'),
      answered('b'),
      // The process is killed here; a new version is imported and approved.
      event('plan/amended', null, { version: 2, reason: 'imported', diff: {}, hash: 'h2', plan: plan('Return 99.') }),
      event('plan/approved', null, { version: 2, hash: 'h2' }),
    ]);

    expect(memory.attemptToGoOn('a', 2), 'its instructions changed: it starts over with the new ones').toBeUndefined();
    expect(memory.attemptToGoOn('b', 2), 'unchanged: it goes on from its last step').toMatchObject({ attempt: 1, modelCalls: 1 });
    expect(memory.attemptToGoOn('a', 1)).toMatchObject({ attempt: 1 });
  });

  it('an attempt the run stopped goes on under a version that left its work as it was (its budget raised), and starts over when its or a dependency\'s work changed', () => {
    const node = (id: string, instructions: string, dependsOn: string[] = [], budget?: { maxTokens: number }) => ({ id, kind: 'edit', title: id, instructions, reads: [], writes: [`${id}.ts`], dependsOn, ...(budget === undefined ? {} : { budget }) });
    const plan = (nodes: object[]) => ({ goal: 'g', nodes });
    const stoppedThen = (amended: object[]) =>
      new RunMemory().add([
        event('plan/created', null, { version: 1, plan: plan([node('base', 'Write base.'), node('a', 'Change a.', ['base'], { maxTokens: 100 })]), hash: 'h1' }),
        runStarted(1),
        ...began('a'),
        answered('a'),
        event('node/cancelled', 'a', { reason: 'run paused: node a\'s budget is reached' }),
        event('plan/amended', null, { version: 2, reason: 'imported', diff: {}, hash: 'h2', plan: plan(amended) }),
        event('plan/approved', null, { version: 2, hash: 'h2' }),
      ]);

    expect(stoppedThen([node('base', 'Write base.'), node('a', 'Change a.', ['base'], { maxTokens: 100_000 })]).attemptToGoOn('a', 2), 'its budget raised').toMatchObject({ attempt: 1 });
    expect(stoppedThen([node('base', 'Write base.'), node('a', 'Change a, carefully.', ['base'])]).attemptToGoOn('a', 2), 'its instructions changed').toBeUndefined();
    expect(stoppedThen([node('base', 'Write base twice.'), node('a', 'Change a.', ['base'], { maxTokens: 100 })]).attemptToGoOn('a', 2), 'its dependency\'s work changed').toBeUndefined();
    expect(stoppedThen([node('base', 'Write base twice.'), node('a', 'Change a.', ['base'])]).whyStartsOver('a', 2)?.reason).toBe('its work changed in plan v2');
  });

  it('a node cancelled before it started has no attempt to go on from', () => {
    const memory = new RunMemory().add([runStarted(1), event('node/cancelled', 'a', { reason: 'run cancelled before the node started' })]);

    expect(memory.attemptToGoOn('a', 1)).toBeUndefined();
  });
});
