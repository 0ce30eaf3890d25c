import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findImporters, scanRepository, UnknownSymbolError, WorkspaceNotFoundError, type RepoMap } from '../../../planners/index.js';
import { copyFixtureRepo, writeFiles } from '../fixture-repo.js';

let root: string;
let cleanup: () => void;
let map: RepoMap;

beforeAll(async () => {
  ({ root, cleanup } = copyFixtureRepo('billing'));
  map = await scanRepository(root);
});
afterAll(() => cleanup());

/** Scans a fresh copy of the fixture with `files` added or replaced. */
async function scanVariant(files: Readonly<Record<string, string>>, options: Parameters<typeof scanRepository>[1] = {}): Promise<RepoMap> {
  const copy = copyFixtureRepo('billing');
  try {
    writeFiles(copy.root, files);
    return await scanRepository(copy.root, options);
  } finally {
    copy.cleanup();
  }
}

const paths = (): string[] => map.files.map((file) => file.path);
const importerFiles = (symbol: string): string[] => findImporters(map, symbol).map((importer) => importer.file);

describe('scanRepository: files', () => {
  it('lists the files git would see, sorted', () => {
    expect(paths()).toEqual([
      '.gitignore',
      'README.md',
      'package.json',
      'scripts/format.cjs',
      'scripts/report.cjs',
      'src/api/invoices.ts',
      'src/geometry.ts',
      'src/jobs/reminder.ts',
      'src/lazy.ts',
      'src/legacy/.gitignore',
      'src/legacy/keep.gen.ts',
      'src/models/customer.ts',
      'src/models/index.ts',
      'src/models/invoice.ts',
      'src/render/pdf.ts',
      'src/shapes/circle.ts',
      'src/shapes/index.ts',
      'src/shapes/shape.ts',
      'src/shapes/square.ts',
      'tools/check.py',
      'tsconfig.json',
    ]);
  });

  it.each([
    ['build/out.js', 'a folder the root .gitignore hides'],
    ['generated/schema.ts', 'another hidden folder'],
    ['src/legacy/old.gen.ts', 'a pattern of a nested .gitignore'],
    ['node_modules/left-pad/index.js', 'dependencies'],
    ['.git/HEAD', 'version control'],
    ['.dagent/config.json', "dagent's own state"],
  ])('leaves out %s (%s)', (path) => {
    expect(paths()).not.toContain(path);
  });

  it('keeps a file a nested .gitignore re-includes with !pattern', () => {
    expect(paths()).toContain('src/legacy/keep.gen.ts');
  });

  it('gives sizes in bytes and languages by extension', () => {
    const file = (path: string) => map.files.find((candidate) => candidate.path === path);
    expect(file('src/shapes/index.ts')).toMatchObject({ language: 'TypeScript', size: 183 });
    expect(file('scripts/format.cjs')).toMatchObject({ language: 'JavaScript' });
    expect(file('tools/check.py')).toMatchObject({ language: 'Python', exports: [] });
    expect(file('README.md')).toMatchObject({ language: 'Markdown' });
  });

  it('honours extra ignore patterns', async () => {
    const scanned = await scanRepository(root, { ignore: ['tools/', '*.md'] });
    expect(scanned.files.map((file) => file.path)).not.toContain('tools/check.py');
    expect(scanned.files.map((file) => file.path)).not.toContain('README.md');
  });
});

describe('scanRepository: import graph', () => {
  it('resolves every kind of specifier with the workspace tsconfig', () => {
    const edges = map.imports.map(({ from, to, specifier, kind }) => `${from} → ${to} (${kind} ${specifier})`);
    expect(edges.sort()).toEqual([
      'scripts/report.cjs → scripts/format.cjs (require ./format.cjs)',
      'src/api/invoices.ts → src/models/index.ts (import ../models)',
      'src/api/invoices.ts → src/models/index.ts (import ../models/index.js)',
      'src/geometry.ts → src/shapes/index.ts (import @shapes)',
      'src/geometry.ts → src/shapes/shape.ts (import ./shapes/shape.js)',
      'src/jobs/reminder.ts → src/models/index.ts (import @models/index)',
      'src/lazy.ts → src/shapes/circle.ts (dynamic ./shapes/circle.js)',
      'src/models/index.ts → src/models/customer.ts (export ./customer.js)',
      'src/models/index.ts → src/models/invoice.ts (export-star ./invoice.js)',
      'src/render/pdf.ts → src/models/index.ts (import @models/index.js)',
      'src/render/pdf.ts → src/models/invoice.ts (import @models/invoice)',
      'src/shapes/circle.ts → src/shapes/shape.ts (import ./shape.js)',
      'src/shapes/index.ts → src/shapes/circle.ts (export ./circle.js)',
      'src/shapes/index.ts → src/shapes/shape.ts (export-star ./shape.js)',
      'src/shapes/index.ts → src/shapes/square.ts (export ./square.js)',
      'src/shapes/square.ts → src/shapes/shape.ts (import ./shape)',
    ]);
    expect(map.unresolved).toEqual([]);
    expect(map.warnings).toEqual([]);
  });

  it('marks type-only imports and gives line numbers', () => {
    expect(map.imports.find((edge) => edge.from === 'src/render/pdf.ts' && edge.specifier === '@models/index.js')).toMatchObject({ typeOnly: true, line: 3 });
    expect(map.imports.find((edge) => edge.from === 'src/render/pdf.ts' && edge.specifier === '@models/invoice')).toMatchObject({ typeOnly: false, line: 2 });
  });

  it('reports relative and aliased specifiers that resolve to nothing, not packages', async () => {
    const scanned = await scanVariant({ 'src/broken.ts': "import { a } from './missing.js';\nimport { b } from '@models/nothing';\nimport { c } from 'some-package';\n" });
    expect(scanned.unresolved).toEqual([
      { from: 'src/broken.ts', specifier: './missing.js', line: 1 },
      { from: 'src/broken.ts', specifier: '@models/nothing', line: 2 },
    ]);
  });
});

describe('scanRepository: exports and importers', () => {
  it('lists each module’s exports, re-exports through barrels included', () => {
    const exports = (path: string) => map.files.find((file) => file.path === path)?.exports;
    expect(exports('src/models/invoice.ts')).toEqual(['Invoice', 'InvoiceLine', 'formatInvoiceId']);
    expect(exports('src/models/index.ts')).toEqual(['Client', 'DEFAULT_CUSTOMER', 'Invoice', 'InvoiceLine', 'formatInvoiceId']);
    expect(exports('src/shapes/index.ts')).toEqual(['Round', 'Shape', 'UNIT', 'squares']);
    expect(exports('scripts/format.cjs')).toEqual(['formatMoney']);
  });

  it('finds importers through a barrel and a path alias', () => {
    expect(findImporters(map, 'src/models/invoice.ts#Invoice')).toEqual([
      expect.objectContaining({ file: 'src/api/invoices.ts', line: 2, name: 'Invoice', via: ['src/models/index.ts'], text: "import { Invoice, formatInvoiceId } from '../models/index.js';" }),
      expect.objectContaining({ file: 'src/jobs/reminder.ts', line: 2, via: ['src/models/index.ts'], text: "import { Invoice } from '@models/index';" }),
      expect.objectContaining({ file: 'src/render/pdf.ts', line: 2, via: [], text: "import { Invoice } from '@models/invoice';" }),
    ]);
  });

  it('follows export { X as Y } from, and counts the barrel that names it', () => {
    expect(findImporters(map, 'src/models/customer.ts#Customer')).toEqual([
      expect.objectContaining({ file: 'src/models/index.ts', kind: 'export', name: 'Customer', via: [] }),
      expect.objectContaining({ file: 'src/render/pdf.ts', kind: 'import', name: 'Client', typeOnly: true, via: ['src/models/index.ts'] }),
    ]);
  });

  it('answers for a re-exported name with the importers of the symbol it stands for', () => {
    expect(findImporters(map, 'src/shapes/index.ts#Round')).toEqual(findImporters(map, 'src/shapes/circle.ts#Circle'));
    expect(map.aliases['src/shapes/index.ts#Round']).toBe('src/shapes/circle.ts#Circle');
    expect(importerFiles('src/shapes/circle.ts#Circle')).toEqual(['src/geometry.ts', 'src/lazy.ts', 'src/shapes/index.ts']);
  });

  it('counts members of namespaces: import * as ns, export * as ns from', () => {
    expect(findImporters(map, 'src/shapes/square.ts#Square')).toEqual([
      expect.objectContaining({ file: 'src/geometry.ts', name: 'Square', via: ['src/shapes/index.ts'] }),
    ]);
    expect(importerFiles('src/shapes/shape.ts#UNIT')).toEqual(['src/geometry.ts', 'src/shapes/square.ts']);
  });

  it('counts a destructured await import() and require()', () => {
    expect(findImporters(map, 'src/shapes/circle.ts#Circle').find((importer) => importer.file === 'src/lazy.ts')).toMatchObject({ kind: 'dynamic', line: 3 });
    expect(findImporters(map, 'scripts/format.cjs#formatMoney')).toEqual([expect.objectContaining({ file: 'scripts/report.cjs', kind: 'require' })]);
  });

  it('accepts ./ and returns nothing for an export nobody imports', () => {
    expect(findImporters(map, './src/render/pdf.ts#renderPdf')).toEqual([]);
  });

  it.each([
    ['src/shape.ts', 'malformed'],
    ['src/missing.ts#Shape', 'unknown-file'],
    ['build/out.js#built', 'unknown-file'],
    ['src/shapes/shape.ts#Shap', 'not-exported'],
  ])('refuses %s (%s) with a typed error', (symbol, reason) => {
    expect(() => findImporters(map, symbol)).toThrow(UnknownSymbolError);
    try {
      findImporters(map, symbol);
    } catch (error) {
      expect(error).toMatchObject({ symbol, reason, exitCode: 2 });
    }
  });

  it('says what a file does export when the name is wrong', () => {
    expect(() => findImporters(map, 'src/shapes/shape.ts#Shap')).toThrow('src/shapes/shape.ts does not export "Shap": it exports Shape, UNIT');
  });
});

describe('scanRepository: configuration', () => {
  it('uses baseUrl and paths of a tsconfig that extends another', async () => {
    const scanned = await scanVariant({
      'tsconfig.base.json': JSON.stringify({ compilerOptions: { module: 'CommonJS', moduleResolution: 'node10', baseUrl: '.', paths: { '~/*': ['src/*'] } } }),
      'tsconfig.json': JSON.stringify({ extends: './tsconfig.base.json', include: ['src'] }),
      'src/uses-base-url.ts': "import { Invoice } from 'src/models/invoice';\nimport { Shape } from '~/shapes/shape';\n",
    });
    expect(scanned.imports.filter((edge) => edge.from === 'src/uses-base-url.ts').map((edge) => edge.to)).toEqual(['src/models/invoice.ts', 'src/shapes/shape.ts']);
  });

  it('resolves NodeNext .js specifiers of .ts sources', async () => {
    const scanned = await scanVariant({
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
      'src/node-next.ts': "import { Shape } from './shapes/shape.js';\nexport type { Invoice } from './models/invoice.js';\n",
    });
    expect(scanned.imports.filter((edge) => edge.from === 'src/node-next.ts').map((edge) => edge.to)).toEqual(['src/shapes/shape.ts', 'src/models/invoice.ts']);
  });

  it('falls back to default resolution with a warning when the tsconfig cannot be read', async () => {
    const scanned = await scanVariant({ 'tsconfig.json': '{ "compilerOptions": ' });
    expect(scanned.warnings).toEqual([expect.stringMatching(/^tsconfig\.json: .*default module resolution$/)]);
    expect(scanned.imports.some((edge) => edge.from === 'src/shapes/square.ts')).toBe(true);
  });

  it('lists but does not parse scripts above the size limit', async () => {
    const scanned = await scanRepository(root, { maxParseBytes: 200 });
    expect(scanned.files.find((file) => file.path === 'src/models/invoice.ts')?.exports).toEqual([]);
    expect(scanned.warnings).toContainEqual('src/models/invoice.ts: 465 bytes, larger than 200; listed but not parsed');
  });

  it('refuses a workspace that does not exist, or is a file, with a typed error', async () => {
    await expect(scanRepository(`${root}/no-such-folder`)).rejects.toThrow(WorkspaceNotFoundError);
    await expect(scanRepository(`${root}/README.md`)).rejects.toMatchObject({ name: 'WorkspaceNotFoundError', exitCode: 2 });
  });

  it('stops when aborted', async () => {
    await expect(scanRepository(root, { signal: AbortSignal.abort() })).rejects.toThrow();
  });
});

describe('scanRepository: dagent\'s own temporary files and files that vanish', () => {
  it('never lists a temporary write file of dagent, even one left behind', async () => {
    const variant = await scanVariant({ 'src/.c.txt.8fe8d022.dagent-tmp': 'half-written', '.top.ts.ab12.dagent-tmp': 'x' });
    expect(variant.files.map((file) => file.path).filter((path) => path.includes('dagent-tmp'))).toEqual([]);
  });

  it('skips a file removed between the listing and its reading instead of failing', async () => {
    const generated = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`src/gen/f${index}.ts`, `export const f${index} = ${index};\n`]));
    const copy = copyFixtureRepo('billing');
    try {
      writeFiles(copy.root, generated);
      let removed = false;
      const scanned = await scanRepository(copy.root, {
        onParse: () => {
          if (removed) return;
          removed = true;
          for (let index = 0; index < 100; index++) rmSync(join(copy.root, 'src', 'gen', `f${index}.ts`), { force: true });
        },
      });
      expect(scanned.files.length).toBeGreaterThan(0);
    } finally {
      copy.cleanup();
    }
  });
});
