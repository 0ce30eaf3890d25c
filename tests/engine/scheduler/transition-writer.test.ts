import { describe, expect, it } from 'vitest';
import type { NodeTransition } from '../../../engine/index.js';
import { TransitionWriter } from '../../../engine/scheduler/transition-writer.js';

const ready = (nodeId: string): NodeTransition<string> => ({ kind: 'ready', to: 'ready', from: 'pending', nodeId, attempts: 0 });

/** A store whose writes finish only when the test says so. */
function gatedStore() {
  const calls: string[][] = [];
  const gates: (() => void)[] = [];
  let failWith: Error | undefined;
  const store = (changes: readonly NodeTransition<string>[]): Promise<void> => {
    calls.push(changes.map((change) => change.nodeId));
    return new Promise((resolve, reject) => gates.push(() => (failWith === undefined ? resolve() : reject(failWith))));
  };
  const open = async (): Promise<void> => {
    while (gates.length === 0) await Promise.resolve();
    gates.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { store, calls, open, fail: (error: Error) => (failWith = error) };
}

describe('TransitionWriter', () => {
  it('writes one group at a time, in order, and puts what arrives meanwhile into the next write', async () => {
    const gated = gatedStore();
    const writer = new TransitionWriter(gated.store);
    const settled: string[] = [];
    void writer.submit([ready('a')]).then(() => settled.push('a'));
    await Promise.resolve();
    void writer.submit([ready('b')]).then(() => settled.push('b'));
    void writer.submit([ready('c'), ready('d')]).then(() => settled.push('c, d'));
    await gated.open();
    expect(gated.calls).toEqual([['a'], ['b', 'c', 'd']]);
    expect(settled).toEqual(['a']);
    await gated.open();
    expect(settled).toEqual(['a', 'b', 'c, d']);
    await expect(writer.idle()).resolves.toBeUndefined();
  });

  it('lets an empty submission settle with the latest write, not before it', async () => {
    const gated = gatedStore();
    const writer = new TransitionWriter(gated.store);
    let stored = false;
    void writer.submit([ready('a')]).then(() => (stored = true));
    const nothing = writer.submit([]).then(() => stored);
    await gated.open();
    await expect(nothing).resolves.toBe(true);
  });

  it('after a failed write, writes nothing more and rejects every later submission with the same error', async () => {
    const gated = gatedStore();
    const writer = new TransitionWriter(gated.store);
    const diskFull = new Error('database or disk is full');
    const first = writer.submit([ready('a')]);
    await Promise.resolve();
    const meanwhile = writer.submit([ready('b')]);
    gated.fail(diskFull);
    await gated.open();
    await expect(first).rejects.toBe(diskFull);
    await expect(meanwhile).rejects.toBe(diskFull);
    await expect(writer.submit([ready('c')])).rejects.toBe(diskFull);
    await expect(writer.idle()).rejects.toBe(diskFull);
    expect(gated.calls).toEqual([['a']]);
    expect(writer.failure?.error).toBe(diskFull);
  });

  it('without a store, every submission is stored at once', async () => {
    const writer = new TransitionWriter<string>(undefined);
    await expect(writer.submit([ready('a')])).resolves.toBeUndefined();
    await expect(writer.idle()).resolves.toBeUndefined();
  });
});
