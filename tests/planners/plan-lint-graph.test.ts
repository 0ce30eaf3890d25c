import { describe, expect, it } from 'vitest';
import { isGlobPattern, matchFiles, normalizePlanPath, planReachability } from '../../planners/index.js';

const node = (id: string, ...dependsOn: string[]) => ({ id, dependsOn });

describe('planReachability', () => {
  const diamond = planReachability([node('read'), node('a', 'read'), node('b', 'a'), node('c', 'a'), node('d', 'b', 'c'), node('lone'), node('stray', 'unknown')]);

  it.each([
    ['read', 'd', true],
    ['a', 'd', true],
    ['b', 'c', false],
    ['c', 'b', false],
    ['d', 'a', false],
    ['a', 'a', false],
    ['lone', 'd', false],
    ['unknown', 'stray', true],
  ])('%s reaches %s: %s', (from, to, expected) => {
    expect(diamond.reaches(from, to)).toBe(expected);
  });

  it('lists descendants', () => {
    expect([...diamond.descendants('a')].sort()).toEqual(['b', 'c', 'd']);
    expect([...diamond.descendants('d')]).toEqual([]);
  });

  it('terminates on a cycle', () => {
    const cyclic = planReachability([node('x', 'z'), node('y', 'x'), node('z', 'y')]);
    expect(cyclic.reaches('x', 'z')).toBe(true);
    expect(cyclic.reaches('z', 'x')).toBe(true);
  });
});

describe('plan paths', () => {
  const files = ['src/a.ts', 'src/b.ts', 'src/models/invoice.ts', 'src/.hidden.ts', 'README.md'];

  it.each([
    ['./src/a.ts', 'src/a.ts'],
    ['src\\models\\invoice.ts', 'src/models/invoice.ts'],
    ['src/models/', 'src/models'],
    ['src//a.ts', 'src/a.ts'],
    ['  src/a.ts ', 'src/a.ts'],
  ])('normalizePlanPath(%j) is %j', (path, expected) => {
    expect(normalizePlanPath(path)).toBe(expected);
  });

  it.each([
    ['src/*.ts', ['src/a.ts', 'src/b.ts', 'src/.hidden.ts']],
    ['src/**/*.ts', ['src/a.ts', 'src/b.ts', 'src/models/invoice.ts', 'src/.hidden.ts']],
    ['src/{a,b}.ts', ['src/a.ts', 'src/b.ts']],
    ['src/a.ts', ['src/a.ts']],
    ['./src/models', ['src/models/invoice.ts']],
    ['src/mod', []],
    ['lib/**', []],
    ['.', files],
  ])('matchFiles(%j)', (pattern, expected) => {
    expect(matchFiles(pattern, files)).toEqual(expected);
  });

  it.each([
    ['src/*.ts', true],
    ['src/**', true],
    ['src/{a,b}.ts', true],
    ['src/a.ts', false],
    ['docs/read me.md', false],
  ])('isGlobPattern(%j) is %s', (pattern, expected) => {
    expect(isGlobPattern(pattern)).toBe(expected);
  });
});
