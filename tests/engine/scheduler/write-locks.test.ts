import { describe, expect, it } from 'vitest';
import { WriteLocks, writePatternsMayOverlap } from '../../../engine/scheduler/write-locks.js';

describe('writePatternsMayOverlap', () => {
  it.each<[string, string, boolean]>([
    ['src/a.ts', 'src/a.ts', true],
    ['src/a.ts', './src/a.ts', true],
    ['src/a.ts', 'src//a.ts', true],
    ['src/a.ts', 'SRC/A.ts', true], // case-insensitive file systems
    ['src/a.ts', 'src/b.ts', false],
    ['src/a.ts', 'src/*.ts', true],
    ['src/a.ts', 'src/*.js', false],
    ['src/deep/a.ts', 'src/*.ts', false],
    ['src/deep/a.ts', 'src/**/*.ts', true],
    ['src/.env', 'src/*', true], // dotfiles count
    ['src/', 'src/a.ts', true], // a folder covers its files
    ['src/**/*.ts', 'src/**/*.md', false],
    ['src/**/*.ts', 'src/deep/*.ts', true],
    ['src/*.ts', 'lib/*.ts', false],
    ['src/*/index.ts', 'src/a/*.ts', true],
    ['src/*.test.ts', 'src/*.ts', true],
    ['src/a*.ts', 'src/b*.ts', false],
    ['**', 'anything/at/all.txt', true],
    ['**/*.ts', 'lib/*.md', false],
    ['src/{a,b}.ts', 'src/*.ts', true], // braces: compared by base folder
    ['src/{a,b}.ts', 'lib/*.ts', false],
    ['!src/a.ts', 'lib/b.ts', true], // negations are treated as covering everything
  ])('%s vs %s → %s', (a, b, expected) => {
    expect(writePatternsMayOverlap(a, b)).toBe(expected);
    expect(writePatternsMayOverlap(b, a)).toBe(expected);
  });
});

describe('WriteLocks', () => {
  it('takes all locks of a node or none of them', () => {
    const locks = new WriteLocks();
    expect(locks.tryAcquire('edit-a', ['src/a.ts'])).toBe(true);
    expect(locks.tryAcquire('edit-bc', ['src/b.ts', 'src/a.ts'])).toBe(false);
    // nothing of edit-bc is held: src/b.ts is still free
    expect(locks.tryAcquire('edit-b', ['src/b.ts'])).toBe(true);
    expect(locks.conflictsWith(['src/*.ts'])).toBe('edit-a');
    locks.release('edit-a');
    locks.release('edit-b');
    expect(locks.tryAcquire('edit-bc', ['src/b.ts', 'src/a.ts'])).toBe(true);
    expect(locks.size).toBe(1);
  });

  it('never blocks a node without writes, nor a node on its own locks', () => {
    const locks = new WriteLocks();
    expect(locks.tryAcquire('edit', ['src/**'])).toBe(true);
    expect(locks.tryAcquire('read', [])).toBe(true);
    expect(locks.tryAcquire('edit', ['src/a.ts'])).toBe(true);
    expect(locks.release('read')).toBe(false);
  });
});
