import { describe, expect, it } from 'vitest';
import { findClosestLine, planEdit, ToolError } from '../../tools/index.js';

describe('planEdit', () => {
  it.each([
    ['one occurrence', 'a\nb\nc\n', 'b', 'B', false, 'a\nB\nc\n', [2]],
    ['every occurrence', 'x\ny\nx\n', 'x', 'z', true, 'z\ny\nz\n', [1, 3]],
    ['special replacement characters literally', 'v = 1\n', '1', "$& $' $1", false, "v = $& $' $1\n", [1]],
    ['deletion', 'keep\ndrop\n', 'drop\n', '', false, 'keep\n', [2]],
    ['CRLF file with LF text', 'a\r\nb\r\n', 'a\nb', 'a\nc', false, 'a\r\nc\r\n', [1]],
  ])('%s', (_name, before, oldString, newString, replaceAll, after, lines) => {
    expect(planEdit(before, oldString, newString, replaceAll, 'f.ts')).toMatchObject({ after, lines });
  });

  it.each([
    ['missing', 'a\nb\n', 'zzz', 'old_string was not found in f.ts; read the file again and copy the text exactly'],
    ['ambiguous', 'q\nq\nq\n', 'q', 'old_string occurs 3 times in f.ts (lines 1, 2, 3); include more surrounding lines to make it unique, or set replace_all to true to change every occurrence'],
    ['empty', 'a', '', 'old_string is empty; to create or overwrite a whole file use write_file'],
    ['whitespace only', '  if (x) {\n    y();\n  }\n', 'if (x) {\ny();', 'old_string was not found in f.ts exactly, but it matches when whitespace is ignored: copy the indentation and line breaks exactly as read_file shows them'],
  ])('explains a %s old_string', (_name, before, oldString, message) => {
    expect(() => planEdit(before, oldString, 'new', false, 'f.ts')).toThrow(new ToolError(message));
  });
});

describe('findClosestLine', () => {
  it.each([
    ['export function area(shape: Shape): number {', { line: 2, text: 'export function areaOf(shape: Shape): number {' }],
    ['  return 3.14 * r * r;', { line: 3, text: '  return Math.PI * r * r;' }],
    ['completely different text here', undefined],
    ['\n\n', undefined],
  ])('%j', (needle, expected) => {
    const content = 'import { Shape } from "./shape";\nexport function areaOf(shape: Shape): number {\n  return Math.PI * r * r;\n}\n';
    const closest = findClosestLine(content, needle);
    if (expected === undefined) expect(closest).toBeUndefined();
    else expect(closest).toMatchObject(expected);
  });
});
