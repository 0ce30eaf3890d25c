import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findImporters, formatBytes, renderScanText, scanJson, scanRepository, type RepoMap } from '../../../planners/index.js';
import { copyFixtureRepo } from '../fixture-repo.js';

const tiny: RepoMap = {
  root: '/w',
  files: [
    { path: 'src/a.ts', size: 120, language: 'TypeScript', exports: ['A', 'helper'] },
    { path: 'src/b.ts', size: 2048, language: 'TypeScript', exports: [] },
    { path: 'tools/x.py', size: 10, language: 'Python', exports: [] },
  ],
  imports: [
    { from: 'src/b.ts', to: 'src/a.ts', specifier: './a.js', kind: 'import', line: 1, typeOnly: false },
    { from: 'src/b.ts', to: 'src/a.ts', specifier: './a.js', kind: 'import', line: 2, typeOnly: true },
  ],
  unresolved: [{ from: 'src/b.ts', specifier: './gone.js', line: 3 }],
  importers: {
    'src/a.ts#A': [{ symbol: 'src/a.ts#A', file: 'src/b.ts', line: 1, text: "import { A as Alpha } from './a.js';", name: 'A', via: [], kind: 'import', typeOnly: false }],
  },
  aliases: {},
  warnings: ['tsconfig.json: something odd'],
};

describe('scanJson', () => {
  it('has the CLI contract shape: files, distinct imports, importers only when asked', () => {
    expect(scanJson(tiny)).toEqual({
      files: [
        { path: 'src/a.ts', size: 120, language: 'TypeScript', exports: ['A', 'helper'] },
        { path: 'src/b.ts', size: 2048, language: 'TypeScript', exports: [] },
        { path: 'tools/x.py', size: 10, language: 'Python', exports: [] },
      ],
      imports: [{ from: 'src/b.ts', to: 'src/a.ts' }],
    });
    const importers = tiny.importers['src/a.ts#A'] ?? [];
    expect(scanJson(tiny, importers).importers).toEqual(importers);
  });

  it('round-trips through JSON on the fixture', async () => {
    const { root, cleanup } = copyFixtureRepo('billing');
    try {
      const map = await scanRepository(root);
      const document = JSON.parse(JSON.stringify(scanJson(map, findImporters(map, 'src/models/invoice.ts#Invoice')))) as ReturnType<typeof scanJson>;
      expect(Object.keys(document)).toEqual(['files', 'imports', 'importers']);
      expect(document.imports).toContainEqual({ from: 'src/jobs/reminder.ts', to: 'src/models/index.ts' });
      expect(document.importers?.map((importer) => importer.file)).toEqual(['src/api/invoices.ts', 'src/jobs/reminder.ts', 'src/render/pdf.ts']);
    } finally {
      cleanup();
    }
  });
});

describe('renderScanText', () => {
  it('prints a summary, each file with its exports and imports, unresolved imports and warnings', () => {
    expect(renderScanText(tiny)).toBe(
      [
        '3 files · TypeScript 2 · Python 1 · 1 import',
        '',
        'src/a.ts    TypeScript    120 B  exports A, helper',
        'src/b.ts    TypeScript   2.0 KB',
        '  → src/a.ts',
        'tools/x.py  Python         10 B',
        '',
        'unresolved imports:',
        '  src/b.ts:3  ./gone.js',
        '',
        'warnings:',
        '  tsconfig.json: something odd',
        '',
      ].join('\n'),
    );
  });

  it('prints the importers when asked for them', () => {
    expect(renderScanText(tiny, tiny.importers['src/a.ts#A'])).toBe(
      ['3 files · TypeScript 2 · Python 1 · 1 import', '', 'src/a.ts#A: 1 importer in 1 file', "  src/b.ts:1  import { A as Alpha } from './a.js';", ''].join('\n'),
    );
    expect(renderScanText(tiny, [])).toContain('\nno importers\n');
  });

  it('notes renamed imports and barrels', () => {
    const text = renderScanText(tiny, [
      { symbol: 'src/c.ts#Circle', file: 'src/g.ts', line: 2, text: "import { Round } from './index.js';", name: 'Round', via: ['src/index.ts'], kind: 'import', typeOnly: false },
    ]);
    expect(text).toContain("  src/g.ts:2  import { Round } from './index.js';  (as Round, via src/index.ts)");
  });

  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KB'],
    [3 * 1024 * 1024, '3.0 MB'],
  ])('formatBytes(%i) is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
