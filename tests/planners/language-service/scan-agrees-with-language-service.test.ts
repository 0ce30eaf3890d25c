import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatedSymbols, generateScanRepo } from '../../../bench/lib/scan-repo-generator.js';
import { createLanguageService, findSymbolReferences, scanRepository } from '../../../planners/index.js';
import { writeFiles } from '../fixture-repo.js';

const MODULES = 24;

/**
 * On generated repositories, `scan --importers` (the import graph for exported names, the
 * narrowed language service for members) names exactly the files TypeScript's find-references
 * names with the whole project loaded — for every exported symbol and public member.
 */
describe('scan --importers agrees with the language service', () => {
  it('on generated repositories, for every exported symbol and public class member', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const root = mkdtempSync(join(tmpdir(), 'dagent-scan-property-'));
        const ours = createLanguageService({ workspace: root });
        const truth = createLanguageService({ workspace: root });
        try {
          writeFiles(root, generateScanRepo({ modules: MODULES, modulesPerPackage: 8, seed }));
          const map = await scanRepository(root);
          await truth.workspaceSymbols('make0', 1); // loads the whole project
          for (let module = 0; module < MODULES; module += 1) {
            for (const symbol of generatedSymbols(module, 8)) {
              const expected = (await truth.referencingFiles({ symbol })).map((entry) => entry.file).sort();
              const found = (await findSymbolReferences(map, symbol, () => ours)).map((entry) => entry.file);
              expect([...new Set(found)].sort(), `${symbol} (seed ${seed})`).toEqual(expected);
            }
          }
        } finally {
          ours.dispose();
          truth.dispose();
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 2 },
    );
  });
});
