import { describe, expect, it } from 'vitest';
import { noCallSince } from '../../../../engine/run/orchestration/step-resume.js';

/** Whether a node's end may take its last step checkpoint as its files: only when no call started after it. */
describe('noCallSince', () => {
  it('is true when the steps after the checkpoint started no call (the final answer)', () => {
    const started = new Map([[1, ['call-read']], [2, ['call-write']], [3, []]]);

    expect(noCallSince(started, { step: 2, calls: 1 })).toBe(true);
  });

  it('is false without a checkpoint, or when any call started after it, a read one included', () => {
    const readAfter = new Map([[1, ['call-write']], [2, ['call-read']]]);
    const moreInStep = new Map([[1, ['call-write', 'call-late']]]);

    expect(noCallSince(new Map([[1, []]]), undefined)).toBe(false);
    expect(noCallSince(readAfter, { step: 1, calls: 1 })).toBe(false);
    expect(noCallSince(moreInStep, { step: 1, calls: 1 })).toBe(false);
  });
});
