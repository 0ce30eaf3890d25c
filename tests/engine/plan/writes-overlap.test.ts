import { describe, expect, it } from 'vitest';
import { literalPrefix, literalSuffix, writesOverlap } from '../../../engine/plan/writes-overlap.js';

describe('writesOverlap', () => {
  it.each([
    ['src/a.ts', 'src/a.ts', { kind: 'same-path', file: 'src/a.ts' }],
    ['src/a.ts', 'src/b.ts', undefined],
    ['src/a.ts', 'src/*.ts', { kind: 'path-in-glob', file: 'src/a.ts', glob: 'src/*.ts' }],
    ['src/**/*.ts', 'src/deep/er/a.ts', { kind: 'path-in-glob', file: 'src/deep/er/a.ts', glob: 'src/**/*.ts' }],
    ['src/**', 'src/.env', { kind: 'path-in-glob', file: 'src/.env', glob: 'src/**' }],
    ['src/*.ts', 'src/deep/a.ts', undefined],
    ['src/*.ts', 'src/a.css', undefined],
    ['src/**', 'src/api/*.ts', { kind: 'globs-may-intersect', globs: ['src/**', 'src/api/*.ts'], prefix: 'src/api/' }],
    ['src/**/*.ts', 'src/**/*.d.ts', { kind: 'globs-may-intersect', globs: ['src/**/*.ts', 'src/**/*.d.ts'], prefix: 'src/' }],
    ['**/*.ts', 'lib/*.ts', { kind: 'globs-may-intersect', globs: ['**/*.ts', 'lib/*.ts'], prefix: 'lib/' }],
    ['src/a/**', 'src/b/**', undefined],
    ['src/a*.ts', 'src/b*.ts', undefined],
    ['src/**/*.ts', 'src/**/*.css', undefined],
    ['src/*.ts', 'src/*.tsx', undefined],
    ['src/*.{ts,tsx}', 'src/*.ts', { kind: 'globs-may-intersect', globs: ['src/*.{ts,tsx}', 'src/*.ts'], prefix: 'src/' }],
  ] as const)('%s and %s', (a, b, expected) => {
    expect(writesOverlap(a, b)).toEqual(expected);
  });

  it('cuts literal prefixes and suffixes at glob characters', () => {
    expect(literalPrefix('src/api/*.ts')).toBe('src/api/');
    expect(literalSuffix('src/api/*.ts')).toBe('.ts');
    expect(literalPrefix('src/{a,b}/x.ts')).toBe('src/');
    expect(literalSuffix('src/**')).toBe('');
    expect(literalPrefix('plain.ts')).toBe('plain.ts');
  });
});
