import { describe, expect, it } from 'vitest';
import { reverseMerge } from '../../../engine/snapshots/reverse-merge.js';

const lines = (...text: string[]): string => text.map((line) => `${line}\n`).join('');

describe('reverseMerge', () => {
  // [case, before the change, as the change left it, now, what the revert gives (null: a conflict)]
  const cases: Array<[string, string, string, string, string | null]> = [
    ['nothing edited since', lines('a', 'b', 'c'), lines('A', 'b', 'c'), lines('A', 'b', 'c'), lines('a', 'b', 'c')],
    ['the next line edited since', lines('a', 'b', 'c'), lines('A', 'b', 'c'), lines('A', 'B', 'c'), lines('a', 'B', 'c')],
    ['the line before edited since', lines('a', 'b', 'c'), lines('a', 'B', 'c'), lines('X', 'B', 'c'), lines('X', 'b', 'c')],
    ['a line appended right after', lines('a', 'b'), lines('a', 'B'), lines('a', 'B', 'c'), lines('a', 'b', 'c')],
    ['a line inserted right before', lines('a', 'b'), lines('a', 'B'), lines('a', 'x', 'B'), lines('a', 'x', 'b')],
    ['far edits on both ends', lines('1', '2', '3', '4', '5'), lines('1', '2', 'C', '4', '5'), lines('one', '2', 'C', '4', 'five'), lines('one', '2', '3', '4', 'five')],
    ['an inserted block removed, edits around it kept', lines('a', 'b'), lines('a', 'new', 'b'), lines('A', 'new', 'B'), lines('A', 'B')],
    ['deleted lines come back beside an edit', lines('a', 'gone', 'b'), lines('a', 'b'), lines('a', 'B'), lines('a', 'gone', 'B')],
    ['the changed line changed again', lines('a', 'b'), lines('A', 'b'), lines('AA', 'b'), null],
    ['a line inside the change deleted', lines('a', 'b', 'c'), lines('A', 'B', 'c'), lines('A', 'c'), null],
    ['text inserted where deleted lines go back', lines('a', 'gone', 'b'), lines('a', 'b'), lines('a', 'other', 'b'), null],
    ['the same undo made by hand already', lines('a', 'b', 'c', 'd'), lines('A', 'b', 'c', 'd'), lines('a', 'b', 'c', 'D'), lines('a', 'b', 'c', 'D')],
    ['one line of a changed block put back by hand already', lines('a', 'b', 'c'), lines('A', 'B', 'c', 'x'), lines('A', 'b', 'c'), lines('a', 'b', 'c')],
    ['no newline at the end', 'a\nb', 'A\nb', 'A\nB', 'a\nB'],
    ['CRLF lines keep their endings', 'a\r\nb\r\n', 'A\r\nb\r\n', 'A\r\nB\r\n', 'a\r\nB\r\n'],
  ];

  it.each(cases)('%s', (_case, before, after, current, expected) => {
    expect(reverseMerge({ before, after, current })).toBe(expected);
  });
});
