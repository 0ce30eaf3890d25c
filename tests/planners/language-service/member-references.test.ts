import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLanguageService, LanguageServiceQueryError, type WorkspaceLanguageService } from '../../../planners/index.js';
import { copyFixtureRepo } from '../fixture-repo.js';

/**
 * The method-rename story: `Invoice.total()` is called through inferred types, a subclass, an
 * interface Invoice implements and destructuring, and `Invoice` is only imported elsewhere. The
 * language service names exactly the files a rename of `total` must touch.
 */

let root: string;
let cleanup: () => void;
let service: WorkspaceLanguageService;

beforeAll(() => {
  ({ root, cleanup } = copyFixtureRepo('members'));
  service = createLanguageService({ workspace: root });
});
afterAll(() => {
  service.dispose();
  cleanup();
});

const files = async (symbol: string): Promise<string[]> => (await service.referencingFiles({ symbol })).map((entry) => entry.file).sort();

describe('referencingFiles', () => {
  it('finds every file that reaches a method, through inference, a subclass, an interface and destructuring', async () => {
    expect(await files('src/invoice.ts#Invoice.total')).toEqual([
      'src/destructuring.ts',
      'src/report.ts',
      'src/subclass-use.ts',
      'src/through-interface.ts',
      'src/totalled.ts',
    ]);
    // The first query loads the compiler and the libraries: seconds on a loaded machine, not a time goal.
  }, 90_000);

  it('names the referencing line of each file', async () => {
    const report = (await service.referencingFiles({ symbol: 'src/invoice.ts#Invoice.total' })).find((entry) => entry.file === 'src/report.ts');
    expect(report).toEqual({ file: 'src/report.ts', line: 4, text: 'export const grand = latest().total() + archive.first().total();', count: 2 });
  });

  it('answers for the class itself with the files that import or name it', async () => {
    expect(await files('src/invoice.ts#Invoice')).toEqual(['src/discounted.ts', 'src/only-imports.ts', 'src/store.ts']);
  });

  it('answers for enum members, interface members and getters', async () => {
    expect(await files('src/invoice.ts#Status.Paid')).toEqual(['src/only-imports.ts']);
    expect(await files('src/totalled.ts#Totalled.total')).toContain('src/through-interface.ts');
    expect(await files('src/invoice.ts#Invoice.label')).toEqual([]);
  });

  it('sees an edit made between two queries', async () => {
    writeFileSync(join(root, 'src/only-imports.ts'), "import { Invoice } from './invoice.js';\nexport const sum = new Invoice([1]).total();\n");
    expect(await files('src/invoice.ts#Invoice.total')).toContain('src/only-imports.ts');
  });

  it('finds a file created after its first query (a node of the run wrote it)', async () => {
    await files('src/invoice.ts#Invoice.total');
    writeFileSync(join(root, 'src/late.ts'), "import { latest } from './store.js';\nexport const late = latest().total();\n");
    expect(await files('src/invoice.ts#Invoice.total')).toContain('src/late.ts');
  });

  it('leaves out the callers of a sibling that implements the same interface with its own method', async () => {
    writeFileSync(join(root, 'src/tally.ts'), "import type { Totalled } from './totalled.js';\nexport class Tally implements Totalled {\n  total(): number {\n    return 0;\n  }\n}\n");
    writeFileSync(join(root, 'src/tally-use.ts'), "import { Tally } from './tally.js';\nexport const counted = new Tally().total();\n");
    expect(await files('src/invoice.ts#Invoice.total')).not.toContain('src/tally-use.ts');
    expect(await files('src/totalled.ts#Totalled.total')).toEqual(expect.arrayContaining(['src/tally-use.ts', 'src/invoice.ts', 'src/report.ts']));
    for (const file of ['src/tally.ts', 'src/tally-use.ts']) rmSync(join(root, file));
  });

  it('refuses a member that does not exist, naming the ones that do', async () => {
    await expect(service.referencingFiles({ symbol: 'src/invoice.ts#Invoice.grandTotal' })).rejects.toThrow(LanguageServiceQueryError);
    await expect(service.referencingFiles({ symbol: 'src/invoice.ts#Invoice.grandTotal' })).rejects.toThrow(/has no "Invoice.grandTotal" \(known: .*total/);
  });
});

describe('the agent-facing queries', () => {
  it('goes to the definition of a call', async () => {
    const [definition] = await service.definition({ file: 'src/report.ts', line: 4, column: 31 });
    expect(definition).toMatchObject({ file: 'src/invoice.ts', line: 12, text: 'total(): number {' });
  });

  it('hovers a call with its signature', async () => {
    const hover = await service.hover({ file: 'src/report.ts', line: 4, column: 31 });
    expect(hover?.signature).toBe('(method) Invoice.total(): number');
  });

  it('lists references at a position, declarations marked', async () => {
    const references = await service.references({ file: 'src/through-interface.ts', line: 4, column: 25 });
    expect(references.filter((reference) => reference.isDefinition).map((reference) => reference.file)).toEqual(['src/invoice.ts', 'src/totalled.ts']);
    expect(references.map((reference) => reference.file)).toContain('src/through-interface.ts');
  });

  it('finds workspace symbols by name', async () => {
    const symbols = await service.workspaceSymbols('DiscountedInvoice');
    expect(symbols).toEqual([expect.objectContaining({ name: 'DiscountedInvoice', kind: 'class', file: 'src/discounted.ts', line: 3 })]);
  });

  it('refuses a position past the end of a file', async () => {
    await expect(service.hover({ file: 'src/report.ts', line: 99, column: 1 })).rejects.toThrow(/line 99 is outside src\/report.ts/);
  });
});
