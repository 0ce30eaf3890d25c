import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findImporters, scanRepository, type RepoMap } from '../../../planners/index.js';
import { copyFixtureRepo } from '../fixture-repo.js';

/**
 * `dagent scan --importers` must agree with TypeScript's own find-references: for every symbol a
 * fixture file declares and exports, the files TypeScript finds references in (besides the
 * declaring file) are exactly the files `findImporters` lists.
 */

let root: string;
let cleanup: () => void;
let map: RepoMap;
let service: ts.LanguageService;

beforeAll(async () => {
  ({ root, cleanup } = copyFixtureRepo('billing'));
  map = await scanRepository(root);
  service = createLanguageService(root);
});
afterAll(() => cleanup());

function createLanguageService(projectRoot: string): ts.LanguageService {
  const configFile = join(projectRoot, 'tsconfig.json');
  const config = ts.readConfigFile(configFile, ts.sys.readFile).config as unknown;
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, projectRoot, undefined, configFile);
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: (fileName) => {
      const text = ts.sys.readFile(fileName);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => projectRoot,
    getCompilationSettings: () => parsed.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: (path) => ts.sys.fileExists(path),
    readFile: (path) => ts.sys.readFile(path),
    readDirectory: (...args) => ts.sys.readDirectory(...args),
    directoryExists: (path) => ts.sys.directoryExists(path),
    getDirectories: (path) => ts.sys.getDirectories(path),
  };
  return ts.createLanguageService(host);
}

interface DeclaredExport {
  readonly file: string;
  readonly name: string;
  readonly fileName: string;
  readonly position: number;
}

/**
 * Every symbol a scanned file declares and exports, via the checker (re-exports are aliases and
 * are skipped; files the .gitignores hide are not part of the map).
 */
function declaredExports(): DeclaredExport[] {
  const program = service.getProgram();
  if (program === undefined) throw new Error('no program');
  const checker = program.getTypeChecker();
  const found: DeclaredExport[] = [];
  for (const sourceFile of program.getSourceFiles()) {
    const file = relative(root, sourceFile.fileName);
    if (sourceFile.isDeclarationFile || !map.files.some((scanned) => scanned.path === file)) continue;
    const moduleSymbol = checker.getSymbolAtLocation(sourceFile);
    if (moduleSymbol === undefined) continue;
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      if ((symbol.flags & ts.SymbolFlags.Alias) !== 0) continue;
      const declaration = symbol.declarations?.[0];
      const name = declaration === undefined ? undefined : ts.getNameOfDeclaration(declaration);
      if (declaration === undefined || name === undefined || declaration.getSourceFile() !== sourceFile) continue;
      found.push({ file, name: symbol.name, fileName: sourceFile.fileName, position: name.getStart() });
    }
  }
  return found;
}

function filesTypeScriptFinds(declared: DeclaredExport): string[] {
  const references = service.findReferences(declared.fileName, declared.position) ?? [];
  const files = references.flatMap((symbol) => symbol.references.map((reference) => relative(root, reference.fileName)));
  const scanned = new Set(map.files.map((file) => file.path));
  return [...new Set(files)].filter((file) => file !== declared.file && scanned.has(file)).sort();
}

function filesScanFinds(declared: DeclaredExport): string[] {
  return [...new Set(findImporters(map, `${declared.file}#${declared.name}`).map((importer) => importer.file))].sort();
}

describe('findImporters and TypeScript find-references', () => {
  it('covers the fixture: aliases, barrels, renamed and namespace re-exports, dynamic import, require', () => {
    const names = declaredExports().map((declared) => `${declared.file}#${declared.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'src/shapes/shape.ts#Shape',
        'src/shapes/circle.ts#Circle',
        'src/shapes/square.ts#Square',
        'src/models/invoice.ts#Invoice',
        'src/models/customer.ts#Customer',
        'src/models/customer.ts#DEFAULT_CUSTOMER',
      ]),
    );
  });

  it('agrees on every exported symbol the fixture declares', () => {
    const declared = declaredExports();
    expect(declared.length).toBeGreaterThan(10);
    const disagreements = declared
      .map((symbol) => ({ symbol: `${symbol.file}#${symbol.name}`, typescript: filesTypeScriptFinds(symbol), scan: filesScanFinds(symbol) }))
      .filter(({ typescript, scan }) => JSON.stringify(typescript) !== JSON.stringify(scan));
    expect(disagreements).toEqual([]);
  });

  it('agrees on a CommonJS export used through a destructured require, asked from the require side', () => {
    // TypeScript follows `module.exports = { formatMoney }` only from the importing side.
    const fileName = join(root, 'scripts/report.cjs');
    const position = (ts.sys.readFile(fileName) ?? '').indexOf('formatMoney');
    const references = service.findReferences(fileName, position) ?? [];
    const typescript = [...new Set(references.flatMap((symbol) => symbol.references.map((reference) => relative(root, reference.fileName))))].sort();
    const importers = findImporters(map, 'scripts/format.cjs#formatMoney').map((importer) => importer.file);
    expect(typescript).toEqual(['scripts/format.cjs', 'scripts/report.cjs']);
    expect(['scripts/format.cjs', ...importers].sort()).toEqual(typescript);
  });

  it.each([
    ['src/shapes/shape.ts#Shape', ['src/geometry.ts', 'src/shapes/circle.ts', 'src/shapes/square.ts']],
    ['src/models/invoice.ts#Invoice', ['src/api/invoices.ts', 'src/jobs/reminder.ts', 'src/render/pdf.ts']],
    ['src/shapes/circle.ts#Circle', ['src/geometry.ts', 'src/lazy.ts', 'src/shapes/index.ts']],
  ])('%s is used in %j by both', (symbol, files) => {
    const declared = declaredExports().find((candidate) => `${candidate.file}#${candidate.name}` === symbol);
    expect(declared).toBeDefined();
    if (declared === undefined) return;
    expect(filesTypeScriptFinds(declared)).toEqual(files);
    expect(filesScanFinds(declared)).toEqual(files);
  });
});
