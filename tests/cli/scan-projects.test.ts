import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';
import { writeFiles } from '../planners/fixture-repo.js';

/**
 * `scan --importers` on a workspace of two TypeScript projects: the root tsconfig.json only lists
 * them (`references`), `app` uses `core` and compiles its JavaScript too (`checkJs`). A second
 * config, tsconfig.paths.json, maps `@core/*` for the whole tree; `--tsconfig` picks it.
 */

const COMPILER = { composite: true, strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', rootDir: 'src', outDir: 'dist' };
const WORKSPACE: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'projects', private: true, type: 'module' }),
  'tsconfig.json': '{\n  // a solution file: only the projects\n  "files": [],\n  "references": [{ "path": "./packages/core" }, { "path": "./packages/app" }]\n}\n',
  'tsconfig.paths.json': JSON.stringify({
    compilerOptions: { strict: true, allowJs: true, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true, paths: { '@core/*': ['./packages/core/src/*'] } },
    include: ['packages'],
  }),
  'packages/core/tsconfig.json': JSON.stringify({ compilerOptions: COMPILER, include: ['src'] }),
  'packages/core/src/invoice.ts': 'export class Invoice {\n  constructor(readonly lines: readonly number[] = []) {}\n\n  total(): number {\n    return this.lines.reduce((sum, line) => sum + line, 0);\n  }\n}\n',
  'packages/app/tsconfig.json': JSON.stringify({ compilerOptions: { ...COMPILER, checkJs: true }, include: ['src'], references: [{ path: '../core' }] }),
  // Reaches Invoice.total() only through the inferred type of latest().
  'packages/app/src/store.ts': "import { Invoice } from '../../core/src/invoice.js';\n\nexport const latest = (): Invoice => new Invoice([1, 2]);\n",
  'packages/app/src/report.ts': "import { latest } from './store.js';\n\nexport const grand = latest().total();\n",
  'packages/app/src/legacy.js': "import { latest } from './store.js';\n\nexport const old = latest().total();\n",
  // Only tsconfig.paths.json knows where @core/ leads.
  'packages/app/src/aliased.ts': "import { Invoice } from '@core/invoice.js';\n\nexport const sum = (invoice: Invoice): number => invoice.total();\n",
  'packages/app/src/unrelated.ts': 'export const total = (): number => 0;\n',
};

let workspace: string;
let cleanup: () => void;
beforeAll(() => {
  ({ dir: workspace, cleanup } = tempDir('dagent-scan-projects-'));
  writeFiles(workspace, WORKSPACE);
});
afterAll(() => cleanup());

vi.setConfig({ testTimeout: 120_000 });

function importersOf(symbol: string, ...flags: string[]): string[] {
  const result = spawnSync(process.execPath, [DAGENT_BIN, 'scan', '--importers', symbol, ...flags], {
    cwd: workspace,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: workspace, NO_COLOR: '1' },
    timeout: 90_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.trim().split(':')[0]!);
}

describe('scan --importers across project references', () => {
  it('finds the callers of a member in the referencing project, JavaScript included', () => {
    expect(importersOf('packages/core/src/invoice.ts#Invoice.total')).toEqual(['packages/app/src/legacy.js', 'packages/app/src/report.ts']);
  });

  it('resolves with the config --tsconfig names', () => {
    expect(importersOf('packages/core/src/invoice.ts#Invoice.total', '--tsconfig', 'tsconfig.paths.json')).toEqual([
      'packages/app/src/aliased.ts',
      'packages/app/src/legacy.js',
      'packages/app/src/report.ts',
    ]);
  });
});
