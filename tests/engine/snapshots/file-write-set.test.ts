import { describe, expect, it } from 'vitest';
import { createWriteSet } from '../../../engine/snapshots/file-write-set.js';

describe('createWriteSet', () => {
  it.each<[string, readonly string[], string, boolean]>([
    ['a literal path covers itself', ['src/a.ts'], 'src/a.ts', true],
    ['and nothing else', ['src/a.ts'], 'src/a.tsx', false],
    ['a leading ./ is ignored', ['./src/a.ts'], 'src/a.ts', true],
    ['a folder ending in / covers its files', ['src/gen/'], 'src/gen/deep/x.ts', true],
    ['* stays in one folder', ['src/*.ts'], 'src/b/c.ts', false],
    ['** crosses folders', ['src/**/*.ts'], 'src/b/c.ts', true],
    ['dotfiles match', ['src/**'], 'src/.env', true],
    ['! excludes instead of adding', ['src/**', '!src/vendor/**'], 'src/vendor/x.ts', false],
    ['! excludes only what it matches', ['src/**', '!src/vendor/**'], 'src/app.ts', true],
    ['an empty write set covers nothing', [], 'a.ts', false],
  ])('%s', (_name, writes, path, covered) => {
    expect(createWriteSet(writes).covers(path)).toBe(covered);
  });
});
