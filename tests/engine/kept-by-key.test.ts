import { describe, expect, it } from 'vitest';
import { keptByKey } from '../../engine/kept-by-key.js';

describe('keptByKey', () => {
  it('computes each key once, and computes again a key dropped as the oldest past the limit', () => {
    const computed: string[] = [];
    const upper = keptByKey(2, (key: string) => {
      computed.push(key);
      return key.toUpperCase();
    });

    expect([upper('a'), upper('b'), upper('a')]).toEqual(['A', 'B', 'A']);
    expect(upper('c')).toBe('C');
    expect(upper('b')).toBe('B');
    expect(upper('a')).toBe('A');

    expect(computed).toEqual(['a', 'b', 'c', 'a']);
  });
});
