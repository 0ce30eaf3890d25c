import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../engine/index.js';
import { KnownWrites } from '../../../engine/session/known-writes.js';

/**
 * What a process knows of a run's writes, so that a reader skips the store when nothing it reads
 * can have changed. A worker's follower hears only the control types: whatever it does not hear
 * from the other processes, it cannot vouch for.
 */

const CONTROL: ReadonlySet<string> = new Set(['node/told', 'node/pause-requested', 'node/resume-requested', 'run/cancel-requested']);

function appended(nodeId: string, type: string, seq: number): SessionEvent {
  return { seq, runId: 'r-1', nodeId, type, turn: 1, step: 0, payload: {}, createdAt: '2026-12-06T00:00:00.000Z' } as unknown as SessionEvent;
}

describe('known writes', () => {
  it('knows nothing while no follower listens: only the store can say', () => {
    const writes = new KnownWrites();
    expect(writes.mark('edit', ['node/told'])).toBeUndefined();
    expect(writes.markOfTypes(['node/told'])).toBeUndefined();
  });

  it('with a follower of every insert, a mark moves with this process’s appends and the others’ heard inserts', () => {
    const writes = new KnownWrites();
    writes.watchOthers('all');
    const before = writes.mark('edit', ['node/told', 'user/message'])!;
    writes.noteOtherWrites(['node/told']);
    writes.noteAppended([appended('edit', 'user/message', 7)]);
    expect(writes.mark('edit', ['node/told', 'user/message'])).toBe(before + 2);
  });

  it('with a follower of the control types only, a mark of another type is unknown unless only this process writes it', () => {
    const writes = new KnownWrites();
    const stop = writes.watchOthers(CONTROL);
    expect(writes.markOfTypes(['node/told'])).toBeDefined();
    expect(writes.markOfTypes(['assistant/message'])).toBeUndefined();
    expect(writes.mark('edit', ['node/told', 'user/message'])).toBeUndefined();

    // A running node's delivered words are its own process's appends: those it counts itself.
    const steering = writes.mark('edit', ['node/told', 'user/message'], ['user/message'])!;
    writes.noteAppended([appended('edit', 'user/message', 8)]);
    expect(writes.mark('edit', ['node/told', 'user/message'], ['user/message'])).toBe(steering + 1);
    writes.noteOtherWrites(['node/told']);
    expect(writes.mark('edit', ['node/told', 'user/message'], ['user/message'])).toBe(steering + 2);

    stop();
    expect(writes.markOfTypes(['node/told'])).toBeUndefined();
  });

  it('a follower of every insert beside one of the control types makes every type known again', () => {
    const writes = new KnownWrites();
    writes.watchOthers(CONTROL);
    const stopAll = writes.watchOthers('all');
    expect(writes.markOfTypes(['assistant/message'])).toBeDefined();
    stopAll();
    expect(writes.markOfTypes(['assistant/message'])).toBeUndefined();
  });
});
