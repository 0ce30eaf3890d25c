import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { collectModuleFacts } from '../../../planners/repo-scan/collect-module-facts.js';
import { NAMESPACE, type ModuleFacts } from '../../../planners/repo-scan/module-facts.js';

function facts(text: string, fileName = '/w/src/a.ts'): ModuleFacts {
  const sourceFile = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  return collectModuleFacts(sourceFile, { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler });
}

const uses = (text: string, fileName?: string) =>
  facts(text, fileName).uses.map(({ importedName, members, kind, typeOnly }) => ({ importedName, members, kind, typeOnly }));
const exported = (text: string, fileName?: string) =>
  facts(text, fileName).exports.map((binding) => (binding.kind === 'local' ? binding.name : `${binding.name} ← ${binding.importedName}${binding.throughImport ? ' (import)' : ''}`));

describe('collectModuleFacts: references', () => {
  it.each([
    ["import { a } from './a';", './a', 'import'],
    ["import './side-effect';", './side-effect', 'import'],
    ["import x = require('./x');", './x', 'import'],
    ["export * from './b';", './b', 'export-star'],
    ["export { c } from './c';", './c', 'export'],
    ["export * as ns from './ns';", './ns', 'export'],
    ["const m = await import('./m');", './m', 'dynamic'],
    ["const r = require('./r');", './r', 'require'],
    ["let t: import('./t').T;", './t', 'import'],
  ])('%s names %s (%s)', (text, specifier, kind) => {
    expect(facts(text).references).toEqual([expect.objectContaining({ specifier, kind, line: 1 })]);
  });

  it('ignores computed specifiers', () => {
    expect(facts('const name = "./x"; await import(name); require(name + ".js");').references).toEqual([]);
  });

  it('marks type-only imports', () => {
    expect(facts("import type { A } from './a';\nexport type { B } from './b';").references.map((reference) => reference.typeOnly)).toEqual([true, true]);
  });
});

describe('collectModuleFacts: uses', () => {
  it.each([
    ["import { a, b as c } from './m';", [{ importedName: 'a', members: [], kind: 'import', typeOnly: false }, { importedName: 'b', members: [], kind: 'import', typeOnly: false }]],
    ["import d from './m';", [{ importedName: 'default', members: [], kind: 'import', typeOnly: false }]],
    ["import { type T, V } from './m';", [{ importedName: 'T', members: [], kind: 'import', typeOnly: true }, { importedName: 'V', members: [], kind: 'import', typeOnly: false }]],
    ["import * as ns from './m';\nns.a(); let x: ns.T; ns.a;", [{ importedName: NAMESPACE, members: ['T', 'a'], kind: 'import', typeOnly: false }]],
    ["const { a, b: c } = require('./m');", [{ importedName: 'a', members: [], kind: 'require', typeOnly: false }, { importedName: 'b', members: [], kind: 'require', typeOnly: false }]],
    ["const m = require('./m');\nm.run();", [{ importedName: NAMESPACE, members: ['run'], kind: 'require', typeOnly: false }]],
    ["require('./m').run();", [{ importedName: 'run', members: [], kind: 'require', typeOnly: false }]],
    ["const { C } = await import('./m');", [{ importedName: 'C', members: [], kind: 'dynamic', typeOnly: false }]],
    ["const m = await import('./m');\nnew m.C();", [{ importedName: NAMESPACE, members: ['C'], kind: 'dynamic', typeOnly: false }]],
    ["let t: import('./m').T;", [{ importedName: 'T', members: [], kind: 'import', typeOnly: true }]],
    ["import './m';", []],
  ])('%s', (text, expected) => {
    expect(uses(text)).toEqual(expected);
  });

  it('gives the statement line and its text on one line', () => {
    const [use] = facts("\n\nimport {\n  a,\n  b,\n} from './m';").uses;
    expect(use).toMatchObject({ line: 3, text: "import { a, b, } from './m';" });
  });
});

describe('collectModuleFacts: exports', () => {
  it.each([
    ['export function f() {}\nexport class C {}\nexport interface I {}\nexport type T = 1;\nexport enum E { A }\nexport namespace N {}', ['f', 'C', 'I', 'T', 'E', 'N']],
    ['export const a = 1, { b, c: [d] } = x;', ['a', 'b', 'd']],
    ['export default function () {}', ['default']],
    ['export default class Named {}', ['default']],
    ['const x = 1;\nexport default x;', ['default']],
    ['const x = 1;\nexport { x as y, x as default };', ['y', 'default']],
    ["export { a, b as c } from './m';", ['a ← a', 'c ← b']],
    ["export * as ns from './m';", [`ns ← ${NAMESPACE}`]],
    ["import { a } from './m';\nexport { a, a as b };", ['a ← a (import)', 'b ← a (import)']],
    ["import * as ns from './m';\nexport { ns };", [`ns ← ${NAMESPACE} (import)`]],
    ['declare const hidden: number;\nfunction local() {}', []],
  ])('%s', (text, expected) => {
    expect(exported(text)).toEqual(expected);
  });

  it('collects export * separately', () => {
    const result = facts("export * from './a';\nexport * from './b';");
    expect(result.stars.map((index) => result.references[index]?.specifier)).toEqual(['./a', './b']);
  });

  it.each([
    ['module.exports = { formatMoney, "quoted": 1, parse() {} };', ['formatMoney', 'quoted', 'parse']],
    ['module.exports.run = run;\nexports.stop = stop;', ['run', 'stop']],
    ['module.exports = function () {};', []],
  ])('reads CommonJS exports in JavaScript: %s', (text, expected) => {
    expect(exported(text, '/w/lib/a.cjs')).toEqual(expected);
  });

  it('does not read CommonJS patterns in TypeScript', () => {
    expect(exported('module.exports = { a };')).toEqual([]);
  });
});
