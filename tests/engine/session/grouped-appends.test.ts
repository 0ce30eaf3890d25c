import { describe, expect, it } from 'vitest';
import { GroupedAppends } from '../../../engine/session/grouped-appends.js';

/** A store that records each send and answers once told to; the stored value of a row is its text upper-cased. */
function recordingStore() {
  const sends: string[][] = [];
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const send = async (rows: readonly string[]): Promise<string[]> => {
    sends.push([...rows]);
    await new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
    return rows.map((row) => row.toUpperCase());
  };
  return { sends, send, answer: () => pending.shift()!.resolve(), fail: (error: Error) => pending.shift()!.reject(error) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('grouped appends', () => {
  it('sends an append at once, and the appends made meanwhile together in the next send, each caller getting its own rows in order', async () => {
    const store = recordingStore();
    const appends = new GroupedAppends(store.send);
    const first = appends.add(['a']);
    const second = appends.add(['b', 'c']);
    const third = appends.add(['d']);
    await settle();
    expect(store.sends).toEqual([['a']]);
    store.answer();
    await settle();
    expect(store.sends).toEqual([['a'], ['b', 'c', 'd']]);
    store.answer();
    expect(await first).toEqual(['A']);
    expect(await second).toEqual(['B', 'C']);
    expect(await third).toEqual(['D']);
  });

  it('fails only the appends a failed send carried; the next ones are sent as usual', async () => {
    const store = recordingStore();
    const appends = new GroupedAppends(store.send);
    const first = appends.add(['a']);
    const second = appends.add(['b']);
    await settle();
    store.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await settle();
    store.answer();
    expect(await second).toEqual(['B']);
    const third = appends.add(['c']);
    await settle();
    store.answer();
    expect(await third).toEqual(['C']);
    expect(store.sends).toEqual([['a'], ['b'], ['c']]);
  });
});
