import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findImporters, scanRepository } from '../../../planners/index.js';
import { writeFiles } from '../fixture-repo.js';

/**
 * A solution-style repository: the root tsconfig.json only lists two projects, and each project
 * maps its own alias in its own tsconfig (`@core/*` in core, `@app/*` in app, which also reaches
 * core through `@lib/*`). The root config knows none of the aliases.
 */

const project = (paths: Record<string, string[]>, references?: string[]): string =>
  JSON.stringify({
    compilerOptions: { composite: true, strict: true, module: 'ESNext', moduleResolution: 'Bundler', baseUrl: '.', paths },
    include: ['src'],
    ...(references === undefined ? {} : { references: references.map((path) => ({ path })) }),
  });

const WORKSPACE: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'solution', private: true, type: 'module' }),
  'tsconfig.json': '{\n  // only the projects\n  "files": [],\n  "references": [{ "path": "./packages/core" }, { "path": "./packages/app/tsconfig.json" }]\n}\n',
  'packages/core/tsconfig.json': project({ '@core/*': ['./src/*'] }),
  'packages/core/src/money.ts': 'export const round = (value: number): number => Math.round(value * 100) / 100;\n',
  'packages/core/src/invoice.ts': "import { round } from '@core/money.js';\n\nexport class Invoice {\n  total(): number {\n    return round(1.005);\n  }\n}\n",
  'packages/app/tsconfig.json': project({ '@app/*': ['./src/*'], '@lib/*': ['../core/src/*'] }, ['../core']),
  'packages/app/src/store.ts': "import { Invoice } from '@lib/invoice.js';\n\nexport const latest = (): Invoice => new Invoice();\n",
  'packages/app/src/report.ts': "import { latest } from '@app/store.js';\n\nexport const grand = latest().total();\n",
};

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dagent-scan-solution-'));
  writeFiles(root, WORKSPACE);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const importersOf = (map: Awaited<ReturnType<typeof scanRepository>>, symbol: string): string[] => findImporters(map, symbol).map((importer) => importer.file);

describe('the scan of a solution-style repository', () => {
  it("resolves each project's own aliases with that project's tsconfig", async () => {
    const map = await scanRepository(root);
    expect(map.unresolved).toEqual([]);
    expect(importersOf(map, 'packages/core/src/money.ts#round')).toEqual(['packages/core/src/invoice.ts']);
    expect(importersOf(map, 'packages/app/src/store.ts#latest')).toEqual(['packages/app/src/report.ts']);
    expect(importersOf(map, 'packages/core/src/invoice.ts#Invoice')).toEqual(['packages/app/src/store.ts']);
  });

  it("answers anew when only a referenced project's alias changes", async () => {
    await scanRepository(root);
    writeFileSync(join(root, 'packages/app/tsconfig.json'), project({ '@app/*': ['./src/*'] }, ['../core']));
    const map = await scanRepository(root);
    expect(importersOf(map, 'packages/core/src/invoice.ts#Invoice')).toEqual([]);
    expect(map.imports.filter((edge) => edge.from === 'packages/app/src/store.ts')).toEqual([]);
  });
});
