import { describe, expect, it } from 'vitest';
import { truncateOutput } from '../../tools/index.js';

const lines = (count: number): string => Array.from({ length: count }, (_, index) => `l${index + 1}`).join('\n');

describe('truncateOutput', () => {
  it.each([
    ['short text', 'hello', { maxChars: 100, maxLines: 10 }],
    ['exactly the line cap', lines(10), { maxChars: 1_000, maxLines: 10 }],
    ['empty', '', { maxChars: 10, maxLines: 1 }],
  ])('leaves %s alone', (_name, text, limits) => {
    expect(truncateOutput(text, limits)).toEqual({ content: text, truncated: false, originalLength: text.length, originalLines: text.split('\n').length });
  });

  it('keeps head and tail lines around a marker when there are too many lines', () => {
    const result = truncateOutput(lines(100), { maxChars: 10_000, maxLines: 11 });
    expect(result).toMatchObject({ truncated: true, originalLength: lines(100).length, originalLines: 100 });
    expect(result.content.split('\n')).toEqual([
      'l1', 'l2', 'l3', 'l4', 'l5',
      '[… output truncated: 90 lines, 356 characters omitted (100 lines, 391 characters in all); showing the start and the end …]',
      'l96', 'l97', 'l98', 'l99', 'l100',
    ]);
  });

  it('cuts inside a single enormous line and stays under the character cap', () => {
    const text = 'x'.repeat(10_000);
    const result = truncateOutput(text, { maxChars: 1_000, maxLines: 100 });
    expect(result.truncated).toBe(true);
    expect(result.content.length).toBeLessThanOrEqual(1_000);
    expect(result.content).toMatch(/^x+\n\[… output truncated: \d+ characters omitted \(1 lines, 10000 characters in all\); showing the start and the end …\]\nx+$/);
  });

  it('stays under the character cap with long lines', () => {
    const text = Array.from({ length: 50 }, () => 'y'.repeat(300)).join('\n');
    const result = truncateOutput(text, { maxChars: 2_000, maxLines: 1_000 });
    expect(result.content.length).toBeLessThanOrEqual(2_000);
    expect(result.content.startsWith('y'.repeat(300))).toBe(true);
    expect(result.content.endsWith('y'.repeat(300))).toBe(true);
  });
});
