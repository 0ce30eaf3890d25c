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

  it('answers what it keeps without computing, and keeps a value computed elsewhere', () => {
    const computed: string[] = [];
    const upper = keptByKey(2, (key: string) => {
      computed.push(key);
      return key.toUpperCase();
    });

    expect(upper.peek('a')).toBeUndefined();
    upper.keep('a', 'A (from elsewhere)');
    upper('b');

    expect(upper('a')).toBe('A (from elsewhere)');
    expect(upper.peek('b')).toBe('B');
    expect(computed).toEqual(['b']);
    upper.keep('c', 'C');
    expect(upper.peek('a')).toBeUndefined();
  });
});
