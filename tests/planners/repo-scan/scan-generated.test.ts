import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findImporters, scanRepository, type RepoMap } from '../../../planners/index.js';
import { writeFiles } from '../fixture-repo.js';

const PACKAGES = 20;
const MODULES_PER_PACKAGE = 24;

/**
 * 500 modules: 20 packages of 24 modules and a barrel each. Module j imports module j-1 of its
 * package by relative `.js` specifier, and module j of the previous package through that
 * package's barrel by a `@lib/*` alias.
 */
function generatedRepository(): Record<string, string> {
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', paths: { '@lib/*': ['./src/*'] } } }),
  };
  for (let pkg = 0; pkg < PACKAGES; pkg += 1) {
    const barrel: string[] = [];
    for (let module = 0; module < MODULES_PER_PACKAGE; module += 1) {
      const lines: string[] = [];
      const terms = ['1'];
      if (module > 0) {
        lines.push(`import { thing${pkg}_${module - 1} } from './m${module - 1}.js';`);
        terms.push(`thing${pkg}_${module - 1}()`);
      }
      if (pkg > 0) {
        lines.push(`import { thing${pkg - 1}_${module} } from '@lib/pkg${pkg - 1}';`);
        terms.push(`thing${pkg - 1}_${module}()`);
      }
      lines.push('', `export function thing${pkg}_${module}(): number {`, `  return ${terms.join(' + ')};`, '}', '');
      files[`src/pkg${pkg}/m${module}.ts`] = lines.join('\n');
      barrel.push(`export * from './m${module}.js';`);
    }
    files[`src/pkg${pkg}/index.ts`] = `${barrel.join('\n')}\n`;
  }
  return files;
}

describe('scanRepository on 500 generated modules', () => {
  let root: string;
  let map: RepoMap;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'dagent-scan-generated-'));
    writeFiles(root, generatedRepository());
    map = await scanRepository(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('lists every file and resolves every import', () => {
    expect(map.files).toHaveLength(PACKAGES * (MODULES_PER_PACKAGE + 1) + 1);
    const withinPackages = PACKAGES * (MODULES_PER_PACKAGE - 1);
    const acrossPackages = (PACKAGES - 1) * MODULES_PER_PACKAGE;
    const barrels = PACKAGES * MODULES_PER_PACKAGE;
    expect(map.imports).toHaveLength(withinPackages + acrossPackages + barrels);
    expect(map.unresolved).toEqual([]);
  });

  it('finds each symbol’s importers, through barrels', () => {
    const entries = Object.values(map.importers).reduce((sum, list) => sum + list.length, 0);
    expect(entries).toBe(PACKAGES * (MODULES_PER_PACKAGE - 1) + (PACKAGES - 1) * MODULES_PER_PACKAGE);
    expect(findImporters(map, 'src/pkg3/m5.ts#thing3_5')).toEqual([
      expect.objectContaining({ file: 'src/pkg3/m6.ts', via: [] }),
      expect.objectContaining({ file: 'src/pkg4/m5.ts', via: ['src/pkg3/index.ts'] }),
    ]);
    expect(findImporters(map, 'src/pkg7/index.ts#thing7_2').map((importer) => importer.file)).toEqual(['src/pkg7/m3.ts', 'src/pkg8/m2.ts']);
  });
});
