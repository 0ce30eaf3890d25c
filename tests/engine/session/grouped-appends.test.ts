import { describe, expect, it } from 'vitest';
import { GroupedAppends, type GroupedAppend } from '../../../engine/session/grouped-appends.js';

/** A store that records each send and answers once told to; the stored value of a row is its text upper-cased, and a row "bad" never goes in. */
function recordingStore() {
  const sends: string[][] = [];
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const send = async (appends: readonly GroupedAppend<string>[]): Promise<string[]> => {
    const rows = appends.flatMap((append) => append.rows);
    sends.push([...rows]);
    await new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
    if (rows.includes('bad')) throw new Error('row "bad" refused');
    return rows.map((row) => row.toUpperCase());
  };
  return { sends, send, answer: () => pending.shift()!.resolve(), fail: (error: Error) => pending.shift()!.reject(error) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const rows = (...texts: string[]): GroupedAppend<string> => ({ rows: texts });

describe('grouped appends', () => {
  it('sends an append at once, and the appends made meanwhile together in the next send, each caller getting its own rows in order', async () => {
    const store = recordingStore();
    const appends = new GroupedAppends(store.send);
    const first = appends.add(rows('a'));
    const second = appends.add(rows('b', 'c'));
    const third = appends.add(rows('d'));
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
    const first = appends.add(rows('a'));
    const second = appends.add(rows('b'));
    await settle();
    store.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await settle();
    store.answer();
    expect(await second).toEqual(['B']);
    const third = appends.add(rows('c'));
    await settle();
    store.answer();
    expect(await third).toEqual(['C']);
    expect(store.sends).toEqual([['a'], ['b'], ['c']]);
  });

  it("sends the appends of a failed group again one by one: only the append with the bad row fails, its neighbours are stored", async () => {
    const store = recordingStore();
    const appends = new GroupedAppends(store.send);
    const first = appends.add(rows('a'));
    const second = appends.add(rows('b'));
    const bad = appends.add(rows('bad'));
    const fourth = appends.add(rows('d'));
    const outcomes = Promise.allSettled([first, second, bad, fourth]);
    for (let send = 0; send < 5; send += 1) {
      await settle();
      store.answer();
    }
    const [a, b, refused, d] = await outcomes;
    expect([a, b, d].map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : outcome.reason))).toEqual([['A'], ['B'], ['D']]);
    expect(refused.status === 'rejected' && (refused.reason as Error).message).toBe('row "bad" refused');
    expect(store.sends).toEqual([['a'], ['b', 'bad', 'd'], ['b'], ['bad'], ['d']]);
  });
});
