import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { killRunningClis, spawnCli } from '../helpers/crash-process.js';
import { isRunning } from '../helpers/process-alive.js';
import { copyFixtureRepo } from '../planners/fixture-repo.js';

/**
 * The warm language service: the first member query of a workspace starts it in the background,
 * later commands ask it, it answers against the files as they are at each question, and it goes
 * away on --stop, when idle, when killed, and when its workspace is deleted.
 */

const TOTAL = 'src/invoice.ts#Invoice.total';
/** Each case runs the CLI several times and a service that loads the compiler: slow on a loaded machine, not a time goal. */
const CASE_TIME_LIMIT_MS = 180_000;

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root, cleanup } = copyFixtureRepo('members'));
});
afterEach(async () => {
  await dagent(['language-service', '--stop']).catch(() => undefined);
  cleanup();
});
afterAll(() => killRunningClis());

async function dagent(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCli(args, root).exited;
}

async function importers(symbol = TOTAL): Promise<string[]> {
  const exit = await dagent(['scan', '--importers', symbol, '--json']);
  expect(exit.stderr).toBe('');
  expect(exit.code).toBe(0);
  return (JSON.parse(exit.stdout) as { importers: { file: string }[] }).importers.map((importer) => importer.file);
}

interface ServiceStatus {
  readonly running: boolean;
  readonly service?: { readonly pid: number; readonly queries: number };
}

async function serviceStatus(): Promise<ServiceStatus> {
  const exit = await dagent(['language-service', '--json']);
  expect(exit.code).toBe(0);
  return JSON.parse(exit.stdout) as ServiceStatus;
}

/** Waits (polling a process we do not control) until the condition holds. */
async function eventually(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (await condition()) return;
  }
  throw new Error(`${what} never happened`);
}

function configure(settings: Record<string, unknown>): void {
  mkdirSync(join(root, '.dagent'), { recursive: true });
  writeFileSync(join(root, '.dagent', 'config.json'), JSON.stringify(settings));
}

describe('the warm language service', () => {
  it('starts on the first member query, answers the next ones against the files as they are now, and stops on --stop', async () => {
    expect((await serviceStatus()).running).toBe(false);

    const before = await importers();
    const started = await serviceStatus();
    writeFileSync(join(root, 'src/late.ts'), "import { latest } from './store.js';\nexport const late = latest().total();\n");
    const after = await importers();
    const asked = await serviceStatus();
    const stopped = await dagent(['language-service', '--stop']);

    expect(before).not.toContain('src/late.ts');
    expect(started).toMatchObject({ running: true, service: { queries: 1 } });
    expect(after).toContain('src/late.ts');
    expect(asked.service).toMatchObject({ pid: started.service!.pid, queries: 2 });
    expect(stopped.stdout).toContain(`stopped the warm language service of ${root} (pid ${started.service!.pid}`);
    expect((await serviceStatus()).running).toBe(false);
  }, CASE_TIME_LIMIT_MS);

  it('says who it is in words', async () => {
    await importers();
    // On a loaded machine the service may still be loading the compiler after the query (which
    // this process then answered itself): it is asked once it listens.
    await eventually(async () => (await serviceStatus()).running, 'the warm language service listening');
    const shown = await dagent(['language-service']);

    expect(shown.stdout).toMatch(new RegExp(`^warm language service of ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: pid \\d+, started .+, [01] quer(?:y|ies); exits after 10 min without a query\\n$`));
  }, CASE_TIME_LIMIT_MS);

  it('exits by itself after languageServiceIdleMinutes without a query', async () => {
    // 3 s: long enough that the status asked just after the query finds it under a loaded machine (1.2 s did not, once).
    configure({ languageServiceIdleMinutes: 0.05 });
    await importers();
    const pid = (await serviceStatus()).service!.pid;
    // Asking for the status is not a query: polling it does not keep the service alive.
    const polled = await serviceStatus();

    await eventually(() => !isRunning(pid), 'the idle exit');
    expect(polled.service?.pid).toBe(pid);
    expect((await serviceStatus()).running).toBe(false);
  }, CASE_TIME_LIMIT_MS);

  it('is never started with languageServiceIdleMinutes: 0, and the answer is the same', async () => {
    configure({ languageServiceIdleMinutes: 0 });

    const found = await importers();

    expect(found).toEqual(['src/destructuring.ts', 'src/report.ts', 'src/subclass-use.ts', 'src/through-interface.ts', 'src/totalled.ts']);
    expect((await serviceStatus()).running).toBe(false);
  }, CASE_TIME_LIMIT_MS);

  it('answers a bad question as the command would: one line, exit 2', async () => {
    await importers();
    const exit = await dagent(['scan', '--importers', 'src/invoice.ts#Invoice.missing']);

    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain('src/invoice.ts has no "Invoice.missing" (known: label, lines, status, total)');
  }, CASE_TIME_LIMIT_MS);

  it('is replaced after it was killed: the next query starts a new one', async () => {
    await importers();
    const first = (await serviceStatus()).service!.pid;
    process.kill(first, 'SIGKILL');
    await eventually(() => !isRunning(first), 'the kill');
    writeFileSync(join(root, 'src/report.ts'), readFileSync(join(root, 'src/report.ts'), 'utf8').replace('archive.first().total()', '0'));

    const found = await importers();

    expect(found).toContain('src/report.ts');
    expect((await serviceStatus()).service?.pid).not.toBe(first);
  }, CASE_TIME_LIMIT_MS);

  it('exits when its workspace is deleted', async () => {
    await importers();
    const pid = (await serviceStatus()).service!.pid;

    rmSync(root, { recursive: true, force: true });

    await eventually(() => !isRunning(pid), 'the exit');
  }, CASE_TIME_LIMIT_MS);
});
