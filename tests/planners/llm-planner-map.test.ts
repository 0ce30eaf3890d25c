import { afterEach, describe, expect, it } from 'vitest';
import { estimateTextTokens } from '../../engine/index.js';
import { rankFiles, renderRepoMapPrompt, splitIdentifier, taskVocabulary, type ImportEdge, type RepoFile, type RepoMap, type SymbolImporter } from '../../planners/index.js';
import { SMALL_MAP, openPlannerBed, planInput, planText, type PlannerBed } from './llm-planner-harness.js';

const TASK = 'Rename InvoiceTotal to InvoiceSum and keep the tests green';

/**
 * 3,000 generated modules in 100 packages (each imports the one before it), plus a billing
 * package: `InvoiceTotal` is declared in invoice-total.ts and imported by report.ts and the API
 * handler; the tests and the package manifest sit at the top.
 */
function bigMap(): RepoMap {
  const files: RepoFile[] = [{ path: 'package.json', size: 800, language: 'JSON', exports: [] }];
  const imports: ImportEdge[] = [];
  const edge = (from: string, to: string): ImportEdge => ({ from, to, specifier: `./${to}`, kind: 'import', line: 1, typeOnly: false });
  for (let pkg = 0; pkg < 100; pkg += 1) {
    for (let module = 0; module < 30; module += 1) {
      const path = `src/pkg${pkg}/module${module}.ts`;
      files.push({ path, size: 1000 + module, language: 'TypeScript', exports: [`thing${pkg}_${module}`, `Helper${pkg}_${module}`] });
      if (module > 0) imports.push(edge(path, `src/pkg${pkg}/module${module - 1}.ts`));
    }
  }
  const billing = ['src/billing/invoice-total.ts', 'src/billing/report.ts', 'src/api/handler.ts', 'tests/billing.test.ts'];
  files.push(
    { path: billing[0]!, size: 640, language: 'TypeScript', exports: ['InvoiceTotal', 'roundCents'] },
    { path: billing[1]!, size: 900, language: 'TypeScript', exports: ['monthlyReport'] },
    { path: billing[2]!, size: 700, language: 'TypeScript', exports: ['handle'] },
    { path: billing[3]!, size: 500, language: 'TypeScript', exports: [] },
  );
  const importer = (file: string): SymbolImporter => ({ symbol: `${billing[0]}#InvoiceTotal`, file, line: 1, text: "import { InvoiceTotal } from './invoice-total.js';", name: 'InvoiceTotal', via: [], kind: 'import', typeOnly: false });
  imports.push(edge(billing[1]!, billing[0]!), edge(billing[2]!, billing[1]!), edge(billing[2]!, billing[0]!), edge(billing[3]!, billing[0]!));
  return {
    root: '/big',
    files: files.sort((left, right) => (left.path < right.path ? -1 : 1)),
    imports,
    unresolved: [],
    importers: { [`${billing[0]}#InvoiceTotal`]: [importer(billing[2]!), importer(billing[1]!), importer(billing[3]!)] },
    aliases: {},
    warnings: [],
  };
}

describe('renderRepoMapPrompt', () => {
  it('shows the whole map when it fits', () => {
    const rendered = renderRepoMapPrompt(SMALL_MAP, { budgetTokens: 6_000, focus: 'Rename Shape to Figure' });
    expect(rendered).toMatchObject({ totalFiles: 3, shownFiles: 3, trimmed: false });
    expect(rendered.tokens).toBe(estimateTextTokens(rendered.text));
    expect(rendered.text).toBe(
      [
        '3 files, 1 import between them.',
        'Each file: path (size) and its exports; "→" lists the workspace files it imports.',
        '',
        'Symbols the task names, and the files that import them:',
        '- src/a.ts#Shape ← src/b.ts',
        '',
        'Files:',
        'package.json (120 B)',
        'src/a.ts (300 B) exports Shape',
        'src/b.ts (200 B) exports Circle',
        '  → src/a.ts',
      ].join('\n'),
    );
  });

  it('trims a big repository to the budget, keeping the files the task is about', () => {
    const rendered = renderRepoMapPrompt(bigMap(), { budgetTokens: 1_500, focus: TASK });

    expect(rendered.trimmed).toBe(true);
    expect(rendered.tokens).toBeLessThanOrEqual(1_500);
    expect(rendered.tokens).toBeGreaterThan(1_000);
    expect(rendered.shownFiles).toBeLessThan(rendered.totalFiles);
    expect(rendered.text).toContain('- src/billing/invoice-total.ts#InvoiceTotal ← src/api/handler.ts, src/billing/report.ts, tests/billing.test.ts');
    expect(rendered.text).toContain('\nsrc/billing/invoice-total.ts (640 B) exports InvoiceTotal, roundCents\n');
    expect(rendered.text).toContain('\nsrc/billing/report.ts (900 B) exports monthlyReport\n  → src/billing/invoice-total.ts\n');
    expect(rendered.text).toContain('\nsrc/api/handler.ts (700 B) exports handle\n  → src/billing/invoice-total.ts, src/billing/report.ts\n');
    expect(rendered.text).toContain('\ntests/billing.test.ts (500 B)\n');
    expect(rendered.text).toContain('\npackage.json (800 B)\n');
    expect(rendered.text).toMatch(new RegExp(`Not shown: ${rendered.totalFiles - rendered.shownFiles} files — src/pkg\\d+/ 30, `));
  });

  it.each([200, 500, 1_000, 3_000, 6_000, 12_000])('never goes over a budget of %i tokens', (budget) => {
    const rendered = renderRepoMapPrompt(bigMap(), { budgetTokens: budget, focus: TASK });
    expect(rendered.tokens).toBeLessThanOrEqual(budget);
    expect(estimateTextTokens(rendered.text)).toBe(rendered.tokens);
  });

  it('puts the files the task names first, whatever their words', () => {
    const named = renderRepoMapPrompt(bigMap(), { budgetTokens: 400, focus: TASK, paths: ['src/pkg42/module7.ts', 'src/pkg9/module29.ts'] });
    expect(named.text).toContain('\nsrc/pkg42/module7.ts (1007 B)');
    expect(named.text).toContain('\nsrc/pkg9/module29.ts (1.0 KB)');
    const folder = renderRepoMapPrompt(bigMap(), { budgetTokens: 3_000, focus: TASK, paths: ['src/pkg9'] });
    for (let module = 0; module < 30; module += 1) expect(folder.text).toContain(`\nsrc/pkg9/module${module}.ts (`);
  });

  it('leaves the map out with a note when even its frame does not fit', () => {
    const rendered = renderRepoMapPrompt(bigMap(), { budgetTokens: 40, focus: TASK });
    expect(rendered.shownFiles).toBe(0);
    expect(rendered.text).toMatch(/^Repository map left out: 3005 files do not fit the map's budget of 40 tokens/);
  });
});

describe('rankFiles', () => {
  it('splits identifiers into words and keeps whole identifiers', () => {
    expect(splitIdentifier('getArea')).toEqual(['get', 'area']);
    expect(splitIdentifier('HTTPServer_v2')).toEqual(['http', 'server', 'v2']);
    const vocabulary = taskVocabulary('Rename Shape.area() to getArea() in @src/shapes everywhere');
    expect([...vocabulary.identifiers].sort()).toEqual(['area', 'getarea', 'rename', 'shape', 'shapes', 'src']);
    expect(vocabulary.words.has('everywhere')).toBe(false);
  });

  it('ranks the declaring file and the importers of a named symbol above unrelated files', () => {
    const scores = rankFiles(bigMap(), TASK);
    const score = (path: string): number => scores.get(path) ?? 0;
    expect(score('src/billing/invoice-total.ts')).toBeGreaterThan(score('src/billing/report.ts'));
    expect(score('src/billing/report.ts')).toBeGreaterThan(score('package.json'));
    expect(score('src/api/handler.ts')).toBeGreaterThan(score('package.json'));
    expect(score('src/pkg3/module4.ts')).toBe(0);
  });
});

describe('the planner with a big repository', () => {
  let bed: PlannerBed | undefined;
  afterEach(async () => {
    await bed?.cleanup();
    bed = undefined;
  });

  it('puts a map trimmed to mapTokenBudget in the instruction', async () => {
    bed = await openPlannerBed({ turns: [{ text: planText() }], repoMap: bigMap(), planner: { mapTokenBudget: 1_200 } });
    await bed.planner.plan(planInput(bed, TASK));

    const instruction = bed.provider.requests[0]!.messages[0]!.content;
    const map = /# Repository map\n\n([\s\S]*?)\n\n# Your answer/.exec(instruction)?.[1] ?? '';
    expect(map).toContain('src/billing/invoice-total.ts (640 B) exports InvoiceTotal');
    expect(map).toContain('Not shown: ');
    expect(estimateTextTokens(map)).toBeLessThanOrEqual(1_200);
  });

  it('asks for a fresh map for every call when given a function', async () => {
    const asked: string[] = [];
    bed = await openPlannerBed({
      turns: [{ text: planText() }],
      planner: {
        repoMap: (workspace) => {
          asked.push(workspace);
          return SMALL_MAP;
        },
      },
    });
    await bed.planner.plan(planInput(bed));
    expect(asked).toEqual([bed.workspace]);
  });
});
