import { describe, expect, it } from 'vitest';
import { DEFAULT_ATTR, lineCells } from '../../dashboard/screen-cells.js';
import { styledLine } from '../../dashboard/styled-line.js';

const BOLD = DEFAULT_ATTR | (1 << 18);
const INVERSE = DEFAULT_ATTR | (8 << 18);
const GREEN = (DEFAULT_ATTR & ~(0x1ff << 9)) | (2 << 9);
const GRAY = (DEFAULT_ATTR & ~(0x1ff << 9)) | (8 << 9);

const chars = (cells: ReturnType<typeof lineCells>): string => cells.map(([, char]) => char).join('');

/** A styled line as the terminal cells the dashboard writes: the text, its look, padded or cut to the width. */
describe('lineCells', () => {
  it('pads plain text with blanks of the default look', () => {
    const cells = lineCells('ok', 5);
    expect(chars(cells)).toBe('ok   ');
    expect(cells.every(([attr]) => attr === DEFAULT_ATTR)).toBe(true);
  });

  it('gives each span its colour or flag, and ends it where the tag closes', () => {
    const cells = lineCells(styledLine([['✓ ', 'green'], ['edit-a', 'inverse'], [' edit', 'dim'], ['!', 'bold']], 20, true), 14);
    expect(chars(cells)).toBe('✓ edit-a edit!');
    expect(cells.map(([attr]) => attr)).toEqual([GREEN, GREEN, ...Array(6).fill(INVERSE), ...Array(5).fill(GRAY), BOLD]);
  });

  it('shows escaped braces as braces and cuts what does not fit', () => {
    expect(chars(lineCells(styledLine([['{json}: 1234567890']], 40, true), 12))).toBe('{json}: 1234');
  });

  it('nests: a colour inside bold keeps both', () => {
    const [cell] = lineCells('{bold}{red-fg}x{/red-fg}{/bold}', 1);
    expect(cell![0]).toBe(((DEFAULT_ATTR & ~(0x1ff << 9)) | (1 << 9)) | (1 << 18));
  });
});
