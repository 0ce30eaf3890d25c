import { describe, expect, it } from 'vitest';
import { visibleJson, visibleText } from '../../engine/index.js';

describe('visibleText', () => {
  it.each([
    ['an erase-line escape', 'echo safe\u001b[2K', 'echo safe\\e[2K'],
    ['a carriage return that would overwrite the line', 'rm -rf ~/canary\recho hello', 'rm -rf ~/canary\\recho hello'],
    ['a C1 CSI', 'a\u009b2Jb', 'a\\x9b2Jb'],
    ['a right-to-left override', 'ls \u202etxt.exe', 'ls \\u202etxt.exe'],
    ['a zero-width space', 'np\u200bm test', 'np\\u200bm test'],
    ['a NUL and a bell', 'a\u0000b\u0007', 'a\\0b\\x07'],
    ['a newline in a one-line field', 'Title\nrm -rf /', 'Title\\nrm -rf /'],
    ['ordinary text with box lines and accents', 'Éditer ┐ parallel — café', 'Éditer ┐ parallel — café'],
  ])('shows %s', (_name, text, shown) => {
    expect(visibleText(text)).toBe(shown);
  });

  it('keeps line feeds and tabs in multiline text, and shows the rest', () => {
    expect(visibleText('line one\n\tline two\u001b]0;owned\u0007', { multiline: true })).toBe('line one\n\tline two\\e]0;owned\\x07');
  });
});

describe('visibleJson', () => {
  it('escapes C1 controls and direction overrides and keeps the same JSON value', () => {
    const value = { title: 'x\u009b2Jy \u202eabc', command: 'echo \u001b[31m' };
    const json = visibleJson(JSON.stringify(value));
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
