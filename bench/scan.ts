import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createLanguageService, scanRepository } from '../planners/index.js';
import { buildReferenceTruth } from './lib/reference-truth.js';
import type { ScanReferencesJob } from './lib/scan-references-worker.js';
import { generateScanRepo, seededRandom } from './lib/scan-repo-generator.js';
import { median, printTable, verdict } from './lib/table.js';

const MODULES = Number(process.env.DAGENT_BENCH_SCAN_MODULES ?? 1500);
/** How many symbols the one-pass truth is checked on against find-references. */
const SAMPLE = Number(process.env.DAGENT_BENCH_SCAN_SAMPLE ?? 300);
/** Worker threads answering our side of the comparison (the machine has 2 cores). */
const WORKERS = Math.max(1, Number(process.env.DAGENT_BENCH_SCAN_WORKERS ?? Math.min(2, availableParallelism())));
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'dagent.js');
const run = promisify(execFile);

/**
 * `npm run bench -- scan`: a generated repository of 1 500 modules (plus barrels). Recall and
 * precision of `scan --importers` over every exported symbol and every public member of an
 * exported class, interface or enum, against TypeScript's answer: one pass of its checker over
 * every identifier of the whole project (bench/lib/reference-truth.ts), itself checked against
 * TypeScript's find-references on a random sample. Cold and cached scan times; the CLI's second
 * `scan --importers` end to end; a warm member query; how long each part took.
 */
export async function runScanBench(): Promise<void> {
  const benchStart = performance.now();
  const cpuStart = process.cpuUsage();
  const root = mkdtempSync(join(tmpdir(), 'dagent-bench-scan-'));
  try {
    for (const [path, content] of Object.entries(generateScanRepo({ modules: MODULES, seed: 7 }))) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
      const start = performance.now();
      const result = await work();
      return [result, performance.now() - start];
    };
    const [, cold] = await timed(() => scanRepository(root, { cache: false }));
    await scanRepository(root);
    const [, warm] = await timed(() => scanRepository(root));
    // One file edited (a comment): only it is parsed again.
    writeFileSync(join(root, 'src/pkg1/m30.ts'), `${readFileSync(join(root, 'src/pkg1/m30.ts'), 'utf8')}// touched\n`);
    const [map, incremental] = await timed(() => scanRepository(root));
    // Each CLI process reports its own CPU time on exit: on a shared machine, wall time is mostly waiting.
    const cpuReport = `data:text/javascript,${encodeURIComponent("process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\ncpu-ms ' + Math.round((u.user + u.system) / 1000) + '\\n'); });")}`;
    const cli = async (symbol: string): Promise<{ wall: number; cpu: number }> => {
      const start = performance.now();
      const { stderr } = await run(process.execPath, ['--import', cpuReport, BIN, 'scan', '--importers', symbol, '--json'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
      const wall = performance.now() - start;
      return { wall, cpu: Number(/cpu-ms (\d+)/.exec(stderr)?.[1] ?? Number.NaN) };
    };
    await cli('src/pkg0/m0.ts#Item0');
    const load = loadavg()[0] ?? 0;
    const seconds5: { wall: number; cpu: number }[] = [];
    for (let round = 0; round < 5; round += 1) seconds5.push(await cli(`src/pkg0/m${round}.ts#Item${round}`));
    const cliSymbol = median(seconds5.map((sample) => sample.wall));
    const cliSymbolCpu = median(seconds5.map((sample) => sample.cpu));
    const cliMember = await cli('src/pkg0/m3.ts#Item3.total3');

    const ours = createLanguageService({ workspace: root, repoMap: async () => map });
    const member = 'src/pkg2/m60.ts#Item60.total60';
    const [, firstMember] = await timed(() => ours.referencingFiles({ symbol: member }));
    const [, warmMember] = await timed(() => ours.referencingFiles({ symbol: 'src/pkg2/m61.ts#Item61.label61' }));
    const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
    printTable(
      `scan times: ${map.files.length} files (load average ${load.toFixed(1)} when the CLI ran)`,
      ['measure', 'value', 'goal', 'verdict'],
      [
        ['scan, cold (no cache)', seconds(cold), '', ''],
        ['scan, cached, nothing changed', seconds(warm), '', ''],
        ['scan, cached, one file edited', seconds(incremental), '', ''],
        ['CLI second scan --importers FILE#Symbol, end to end, median of 5', seconds(cliSymbol), '≤ 1 s', verdict(cliSymbol <= 1000)],
        ['  the same, its CPU time (user + system)', seconds(cliSymbolCpu), '', ''],
        ['CLI scan --importers FILE#Class.member, end to end (cold compiler)', `${seconds(cliMember.wall)} (CPU ${seconds(cliMember.cpu)})`, '', ''],
        ['member query, first in a process (compiler loaded)', seconds(firstMember), '', ''],
        ['member query, warm language service', seconds(warmMember), '≤ 3 s', verdict(warmMember <= 3000)],
      ],
    );

    // The truth: TypeScript alone, whole project loaded, every identifier of every file in one pass.
    const [truth, truthBuild] = await timed(async () => buildReferenceTruth(root));
    // Our answers, exactly as `scan --importers` gives them, in worker threads (a language service
    // each, symbols dealt round-robin), while this thread checks the truth against find-references.
    const cpuBeforeCompare = process.cpuUsage();
    const answering = timed(async () => {
      const shares = Array.from({ length: WORKERS }, (_, share) => truth.symbols.filter((_symbol, index) => index % WORKERS === share));
      return Object.assign({}, ...(await Promise.all(shares.map((symbols) => answersOf(root, symbols))))) as Record<string, string[]>;
    });
    // Checked against TypeScript's find-references itself on a random sample.
    const random = seededRandom(13);
    const sample = [...truth.symbols].sort(() => random() - 0.5).slice(0, SAMPLE);
    let agreed = 0;
    const disagreements: string[] = [];
    const [, sampleTime] = await timed(async () => {
      for (const symbol of sample) {
        const onePass = truth.files(symbol);
        const found = truth.findReferencesFiles(symbol);
        if (onePass.size === found.size && [...found].every((file) => onePass.has(file))) agreed += 1;
        else if (disagreements.length < 5) disagreements.push(`${symbol}: find-references ${[...found].sort().join(' ')} | one pass ${[...onePass].sort().join(' ')}`);
      }
    });

    let expectedTotal = 0;
    let foundTotal = 0;
    let correct = 0;
    let members = 0;
    const misses: string[] = [];
    const extras: string[] = [];
    const [answers, compare] = await answering;
    for (const symbol of truth.symbols) {
      if (symbol.slice(symbol.indexOf('#') + 1).includes('.')) members += 1;
      const expected = truth.files(symbol);
      const found = new Set(answers[symbol] ?? []);
      expectedTotal += expected.size;
      foundTotal += found.size;
      for (const file of found) {
        if (expected.has(file)) correct += 1;
        else if (extras.length < 5) extras.push(`${symbol} named ${file}`);
      }
      if (misses.length < 5) for (const file of expected) if (!found.has(file)) misses.push(`${symbol} missed ${file}`);
    }
    const cpuSeconds = (since: NodeJS.CpuUsage): string => { const used = process.cpuUsage(since); return seconds((used.user + used.system) / 1000); };
    const compareCpu = cpuSeconds(cpuBeforeCompare);
    ours.dispose();
    truth.dispose();
    const recall = expectedTotal === 0 ? 1 : correct / expectedTotal;
    const precision = foundTotal === 0 ? 1 : correct / foundTotal;
    const percent = (value: number): string => `${(value * 100).toFixed(2)} %`;
    const symbols = truth.symbols.length;
    printTable(
      `scan --importers against TypeScript: ${symbols} symbols (${symbols - members} exported symbols, ${members} public members) of ${MODULES} modules`,
      ['measure', 'value', 'goal', 'verdict'],
      [
        ['one-pass truth agrees with find-references (random sample)', `${agreed} of ${sample.length}`, 'all', verdict(agreed === sample.length)],
        ['recall', `${percent(recall)} (${correct} of ${expectedTotal} referencing files)`, '100 %', verdict(recall === 1)],
        ['precision', `${percent(precision)} (${correct} of ${foundTotal})`, '≥ 99 %', verdict(precision >= 0.99)],
        ['time: truth, one pass over every identifier (whole project checked)', seconds(truthBuild), '', ''],
        [`time: truth, ${sample.length} find-references queries`, seconds(sampleTime), '', ''],
        [`time: scan --importers for all ${symbols} symbols (import graph; language service for members), ${WORKERS} worker threads`, `${seconds(compare)} (CPU ${compareCpu} with the sample)`, '', ''],
        [`time: whole benchmark (load average ${loadavg()[0]?.toFixed(1) ?? '?'} at the end)`, `${seconds(performance.now() - benchStart)} (CPU ${cpuSeconds(cpuStart)}, this process)`, '< 15 min', verdict(performance.now() - benchStart < 15 * 60_000)],
      ],
    );
    if (disagreements.length > 0) process.stdout.write(`first disagreements:\n${disagreements.map((line) => `  ${line}`).join('\n')}\n`);
    if (misses.length > 0) process.stdout.write(`first misses:\n${misses.map((miss) => `  ${miss}`).join('\n')}\n`);
    if (extras.length > 0) process.stdout.write(`first files named that TypeScript does not reference:\n${extras.map((extra) => `  ${extra}`).join('\n')}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** `findSymbolReferences` for each symbol, in a worker thread of its own. */
function answersOf(root: string, symbols: readonly string[]): Promise<Record<string, string[]>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./lib/scan-references-worker.js', import.meta.url), { workerData: { root, symbols } satisfies ScanReferencesJob });
    worker.once('message', (answers: Record<string, string[]>) => resolve(answers));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`a comparison worker exited with code ${code}`));
    });
  });
}
