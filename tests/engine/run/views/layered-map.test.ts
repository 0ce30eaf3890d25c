import { describe, expect, it } from 'vitest';
import { LayeredMap } from '../../../../engine/run/views/layered-map.js';

describe('LayeredMap', () => {
  it('reads, iterates and sizes as a Map given the same sets, through many foldings of its layer', () => {
    let layered = LayeredMap.from(new Map([['a', 0]]));
    const plain = new Map([['a', 0]]);
    const keys = Array.from({ length: 300 }, (_, index) => `k${index % 120}`);
    for (const [step, key] of keys.entries()) {
      layered = layered.with(key, step);
      plain.set(key, step);
      if (step % 37 === 0) {
        expect([...layered]).toEqual([...plain]);
        expect(layered.size).toBe(plain.size);
      }
    }
    expect([...layered.keys()]).toEqual([...plain.keys()]);
    expect([...layered.values()]).toEqual([...plain.values()]);
    expect([...layered.entries()]).toEqual([...plain.entries()]);
    expect(layered.get('k5')).toBe(plain.get('k5'));
    expect(layered.has('k119')).toBe(true);
    expect(layered.has('missing')).toBe(false);
    const seen: string[] = [];
    layered.forEach((_value, key) => seen.push(key));
    expect(seen).toEqual([...plain.keys()]);
  });

  it('leaves the map it came from as it was', () => {
    const first = LayeredMap.from(new Map([['a', 1]]));
    const second = first.with('a', 2).with('b', 3);
    expect([...first]).toEqual([['a', 1]]);
    expect([...second]).toEqual([['a', 2], ['b', 3]]);
    expect(new Map(second)).toEqual(new Map([['a', 2], ['b', 3]]));
  });
});
