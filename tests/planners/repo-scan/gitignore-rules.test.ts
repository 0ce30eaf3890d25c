import { describe, expect, it } from 'vitest';
import { isIgnored, parseGitignore } from '../../../planners/index.js';

const root = parseGitignore('', '# output\nbuild/\n*.log\n!keep.log\n/only-at-root.txt\n');
const nested = parseGitignore('src/legacy', '*.gen.ts\n!keep.gen.ts\n');
const overriding = parseGitignore('logs', '!*.log\n');

describe('isIgnored', () => {
  it.each([
    ['build', true, [root], true],
    ['build', false, [root], false],
    ['src/build', true, [root], true],
    ['app.log', false, [root], true],
    ['keep.log', false, [root], false],
    ['only-at-root.txt', false, [root], true],
    ['src/only-at-root.txt', false, [root], false],
    ['src/legacy/old.gen.ts', false, [root, nested], true],
    ['src/legacy/keep.gen.ts', false, [root, nested], false],
    ['src/other/old.gen.ts', false, [root, nested], false],
    ['logs/app.log', false, [root, overriding], false],
    ['app.log', false, [root, overriding], true],
    ['src/a.ts', false, [root, nested], false],
  ] as const)('%s (directory: %s) → ignored %s', (path, isDirectory, rules, expected) => {
    expect(isIgnored(rules, path, isDirectory)).toBe(expected);
  });
});
