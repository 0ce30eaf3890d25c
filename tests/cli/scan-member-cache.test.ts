import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEMBER_REFERENCES_CACHE_PATH } from '../../planners/index.js';
import { killRunningClis, spawnCli } from '../helpers/crash-process.js';
import { copyFixtureRepo } from '../planners/fixture-repo.js';

/**
 * `dagent scan --importers FILE#Class.member` and the plan lint of a member change keep their
 * answers in `.dagent/cache/member-references/` with the fingerprints of the files they came from:
 * a repeat answers the same, an edit that adds a use shows up in the next answer, and an edit
 * that cannot change the answer (a file the answer never loaded, a typed function body) keeps it.
 */

const TOTAL = 'src/invoice.ts#Invoice.total';
/** Each case runs the CLI three to five times, each loading the compiler: slow on a loaded machine, not a time goal. */
const CASE_TIME_LIMIT_MS = 180_000;
const TOTAL_USERS = ['src/destructuring.ts', 'src/report.ts', 'src/subclass-use.ts', 'src/through-interface.ts', 'src/totalled.ts'];

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root, cleanup } = copyFixtureRepo('members'));
});
afterEach(() => cleanup());
afterAll(() => killRunningClis());

interface Importer {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

async function importers(symbol: string): Promise<Importer[]> {
  const exit = await spawnCli(['scan', '--importers', symbol, '--json'], root).exited;
  expect(exit.stderr).toBe('');
  expect(exit.code).toBe(0);
  return (JSON.parse(exit.stdout) as { importers: Importer[] }).importers;
}

const files = (found: readonly Importer[]): string[] => found.map((importer) => importer.file);

/** Marks every stored answer, so the next query shows whether it came from the cache. */
function markStoredAnswers(): void {
  const folder = join(root, MEMBER_REFERENCES_CACHE_PATH);
  for (const name of readdirSync(folder)) {
    const stored = JSON.parse(readFileSync(join(folder, name), 'utf8')) as { files: { text: string }[] };
    for (const file of stored.files) file.text = 'from the cache';
    writeFileSync(join(folder, name), JSON.stringify(stored));
  }
}

describe('scan --importers of a member, from a new process each time', () => {
  it('answers a repeat the same, from the cache', async () => {
    const first = await importers(TOTAL);
    expect(files(first)).toEqual(TOTAL_USERS);
    expect(readdirSync(join(root, MEMBER_REFERENCES_CACHE_PATH))).toHaveLength(1);
    expect(await importers(TOTAL)).toEqual(first);
  }, CASE_TIME_LIMIT_MS);

  it('names a file in the next answer once an edit adds a use of the member', async () => {
    await importers(TOTAL);
    markStoredAnswers();
    writeFileSync(join(root, 'src/only-imports.ts'), "import { Invoice } from './invoice.js';\nexport const sum = new Invoice([1]).total();\n");
    const after = await importers(TOTAL);
    expect(files(after)).toEqual([...TOTAL_USERS, 'src/only-imports.ts'].sort());
    expect(after.map((importer) => importer.text)).not.toContain('from the cache');
  }, CASE_TIME_LIMIT_MS);

  it('finds a new file that reaches the member', async () => {
    await importers(TOTAL);
    writeFileSync(join(root, 'src/late.ts'), "import { latest } from './store.js';\nexport const late = latest().total();\n");
    expect(files(await importers(TOTAL))).toContain('src/late.ts');
  }, CASE_TIME_LIMIT_MS);

  it('keeps the answer through edits that cannot change it: a file it never loaded, a typed function body', async () => {
    await importers(TOTAL);
    markStoredAnswers();
    // unrelated.ts calls a total() of its own class and imports nothing of the invoice's.
    writeFileSync(join(root, 'src/unrelated.ts'), `${readFileSync(join(root, 'src/unrelated.ts'), 'utf8')}export const again = new Meter().total();\n`);
    // store.ts is loaded for the answer, but only a body with a declared return type changes.
    const store = readFileSync(join(root, 'src/store.ts'), 'utf8');
    writeFileSync(join(root, 'src/store.ts'), store.replace('new Invoice([10, 20])', 'new Invoice([10, 30])'));
    const kept = await importers(TOTAL);
    expect(files(kept)).toEqual(TOTAL_USERS);
    expect(kept.every((importer) => importer.text === 'from the cache')).toBe(true);

    // A change to what store.ts shows other files is not such an edit.
    writeFileSync(join(root, 'src/store.ts'), store.replace('export function latest(): Invoice {', 'export function latest() {'));
    expect((await importers(TOTAL)).map((importer) => importer.text)).not.toContain('from the cache');
  }, CASE_TIME_LIMIT_MS);

  it('keeps one answer per member: an edit that changes one leaves the other stored', async () => {
    await importers(TOTAL);
    const paid = await importers('src/invoice.ts#Status.Paid');
    expect(files(paid)).toEqual(['src/only-imports.ts']);
    markStoredAnswers();
    // through-interface.ts calls total() inside a typed body: the answer about total is computed again, the one about Paid is kept.
    const path = join(root, 'src/through-interface.ts');
    writeFileSync(path, readFileSync(path, 'utf8').replace('`total ${item.total()}`', '`sum ${item.total()}`'));
    expect((await importers(TOTAL)).find((importer) => importer.file === 'src/through-interface.ts')?.text).toBe('return `sum ${item.total()}`;');
    expect((await importers('src/invoice.ts#Status.Paid')).map((importer) => importer.text)).toEqual(['from the cache']);
  }, CASE_TIME_LIMIT_MS);
});

describe('the plan lint of a member change', () => {
  it('names the file an edit made a user of the member, from a new process', async () => {
    const plan = join(root, '..', 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify({
        goal: 'Rename Invoice.total',
        nodes: [{ id: 'edit', kind: 'edit', title: 'Rename total', instructions: 'rename', reads: ['src/invoice.ts'], writes: ['src/invoice.ts'], dependsOn: [], changes: [TOTAL] }],
      }),
    );
    const lintedFiles = async (): Promise<string[]> => {
      const exit = await spawnCli(['plan', '--from', plan], root).exited;
      expect(exit.code).toBe(0);
      return [...exit.stdout.matchAll(/lint error: (\S+?):\d+ uses Invoice\.total/g)].map((match) => match[1] ?? '').sort();
    };
    const first = await lintedFiles();
    expect(first).toEqual(TOTAL_USERS);
    expect(await lintedFiles()).toEqual(first);
    writeFileSync(join(root, 'src/only-imports.ts'), "import { Invoice } from './invoice.js';\nexport const sum = new Invoice([1]).total();\n");
    expect(await lintedFiles()).toEqual([...first, 'src/only-imports.ts'].sort());
  }, CASE_TIME_LIMIT_MS);
});
