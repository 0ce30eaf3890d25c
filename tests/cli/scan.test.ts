import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliContext } from '../../cli/context/cli-context.js';
import type { CliIo } from '../../cli/context/cli-io.js';
import { COMMANDS } from '../../cli/commands/index.js';
import { scanCommand } from '../../cli/commands/scan.js';
import { UnknownSymbolError } from '../../planners/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { copyFixtureRepo, writeFiles } from '../planners/fixture-repo.js';

let root: string;
let cleanup: () => void;
beforeAll(() => {
  ({ root, cleanup } = copyFixtureRepo('billing'));
});
afterAll(() => cleanup());

const INVOICE_IMPORTERS = ['src/api/invoices.ts', 'src/jobs/reminder.ts', 'src/render/pdf.ts'];

/** Runs the command's handler on a context of its own, as the CLI would after parsing. */
async function scan(options: { json?: boolean; importers?: string; cwd?: string; tsconfig?: string }): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const io: CliIo = { stdout, stderr, stdin: new PassThrough(), env: {}, cwd: options.cwd ?? root, interrupt: new AbortController().signal };
  const context = new CliContext(io, { json: options.json ?? false });
  const code = await scanCommand.run(context, { json: options.json ?? false, ...(options.importers === undefined ? {} : { importers: options.importers }), ...(options.tsconfig === undefined ? {} : { tsconfig: options.tsconfig }) });
  return { code, stdout: out, stderr: err };
}

describe('scanCommand', () => {
  it('prints the repository map as text', async () => {
    const result = await scan({});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+ files · TypeScript \d+ · .* · \d+ imports\n/);
    expect(result.stdout).toMatch(/\nsrc\/jobs\/reminder\.ts +TypeScript .* exports reminderText\n {2}→ src\/models\/index\.ts\n/);
    expect(result.stdout).not.toContain('node_modules');
  });

  it('prints the JSON of the CLI contract: files and distinct import edges', async () => {
    const result = await scan({ json: true });
    const document = JSON.parse(result.stdout);
    expect(Object.keys(document)).toEqual(['files', 'imports']);
    expect(document.files).toContainEqual({ path: 'src/models/invoice.ts', size: expect.any(Number), language: 'TypeScript', exports: ['Invoice', 'InvoiceLine', 'formatInvoiceId'] });
    expect(document.imports).toContainEqual({ from: 'src/jobs/reminder.ts', to: 'src/models/index.ts' });
    expect(Object.keys(document.imports[0])).toEqual(['from', 'to']);
  });

  it('answers --importers with the files that use the symbol, through barrels and aliases', async () => {
    const text = await scan({ importers: 'src/models/invoice.ts#Invoice' });
    expect(text.stdout).toContain('src/models/invoice.ts#Invoice: 3 importers in 3 files');
    expect(text.stdout).toMatch(/\n {2}src\/jobs\/reminder\.ts:2 {2}import \{ Invoice \} from '@models\/index';  \(via src\/models\/index\.ts\)\n/);
    const json = JSON.parse((await scan({ json: true, importers: './src/models/invoice.ts#Invoice' })).stdout);
    expect(json.importers.map((importer: { file: string }) => importer.file)).toEqual(INVOICE_IMPORTERS);
  });

  it('prints the scan warnings on stderr with --json, where they do not break the document', async () => {
    const { root: broken, cleanup: cleanupBroken } = copyFixtureRepo('billing');
    try {
      writeFiles(broken, { 'tsconfig.json': '{ "compilerOptions": { "module": ' });
      const result = await scan({ json: true, cwd: broken });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).files.length).toBeGreaterThan(0);
      expect(result.stderr).toMatch(/^dagent: warning: tsconfig\.json: /);
    } finally {
      cleanupBroken();
    }
  });

  it('refuses a --tsconfig that is not there (the default ones may be missing)', async () => {
    const failure = await scan({ tsconfig: 'tsconfig.nope.json' }).catch((error: unknown) => error);

    expect(failure).toMatchObject({ exitCode: 2, message: '--tsconfig tsconfig.nope.json: no such file (the scan looks for tsconfig.json, then jsconfig.json, when none is named)' });
  });

  it.each([
    ['src/models/nope.ts#Invoice', 'unknown-file'],
    ['src/models/invoice.ts#Receipt', 'not-exported'],
    ['src/models/invoice.ts', 'malformed'],
  ])('refuses --importers %s (%s) with a typed error', async (symbol, reason) => {
    const failure = await scan({ importers: symbol }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnknownSymbolError);
    expect(failure).toMatchObject({ reason, exitCode: 2 });
  });
});

describe.skipIf(!COMMANDS.some((command) => command.command.startsWith('scan')))('dagent scan', () => {
  it('prints the JSON of the CLI contract', async () => {
    const result = await runCli(['scan', '--json'], { cwd: root });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const document = JSON.parse(result.stdout);
    expect(Object.keys(document)).toEqual(['files', 'imports']);
    expect(document.imports).toContainEqual({ from: 'src/jobs/reminder.ts', to: 'src/models/index.ts' });
  });

  it('scans the folder --workspace names', async () => {
    const result = await runCli(['--workspace', root, 'scan', '--importers', 'src/models/invoice.ts#Invoice', '--json'], { cwd: '/' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).importers.map((importer: { file: string }) => importer.file)).toEqual(INVOICE_IMPORTERS);
  });

  it('lists the importers of a symbol as text', async () => {
    const result = await runCli(['scan', '--importers', 'src/models/invoice.ts#Invoice'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('src/models/invoice.ts#Invoice: 3 importers in 3 files');
  });

  it.each([
    ['src/models/nope.ts#Invoice', 'dagent: src/models/nope.ts is not in the repository scan'],
    ['src/models/invoice.ts#Receipt', 'dagent: src/models/invoice.ts has no "Receipt"'],
  ])('exits 2 with one line for --importers %s', async (symbol, start) => {
    const result = await runCli(['scan', '--importers', symbol], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(start)).toBe(true);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
