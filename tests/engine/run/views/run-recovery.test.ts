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
