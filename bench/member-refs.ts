import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generateScanRepo } from './lib/scan-repo-generator.js';
import { printTable, verdict } from './lib/table.js';

/** 2 881 modules, 116 package barrels, the root barrel, tsconfig.json and package.json: 3 000 files. */
const MODULES = Number(process.env.DAGENT_BENCH_MEMBER_MODULES ?? 2881);
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'dagent.js');
const run = promisify(execFile);

/** The member asked about, and the files the edits touch. */
const MEMBER = 'src/pkg2/m60.ts#Item60.total60';
/** A file the answer is computed from (it reaches the member's class) whose edit stays inside a typed method body. */
const BODY_EDITED = 'src/pkg2/m61.ts';
/** The files that start using the member: one for the scan, then one for the lint. */
const USE_ADDED = ['src/pkg2/m59.ts', 'src/pkg2/m58.ts'] as const;

interface Sample {
  readonly wall: number;
  readonly cpu: number;
  readonly stdout: string;
}

/**
 * `npm run bench -- member-refs`: `dagent scan --importers FILE#Class.member` and the plan lint of
 * a member change (`dagent plan --from`), each a new CLI process, on a generated TypeScript
 * repository of 3 000 files (classes, interfaces, and member uses through inferred types,
 * subclasses, interfaces, barrels and namespaces): cold (no cache), an unchanged repeat, after
 * one edit the answer cannot depend on (a typed method body in a file it loaded), and after an
 * edit that adds a use of the member (the answer is computed again). Wall and CPU time of each.
 */
export async function runMemberRefsBench(): Promise<void> {
  const load = loadavg()[0] ?? 0;
  const warm = await measureSequence('warm');
  const inProcess = await measureSequence('in-process');
  const seconds = (sample: Sample): string => `${(sample.wall / 1000).toFixed(2)} / ${(sample.cpu / 1000).toFixed(2)} s`;
  const rows = MEASURES.map(([name, goal], index) => [name, seconds(warm.samples[index]!), seconds(inProcess.samples[index]!), `≤ ${goal} s`, verdict(warm.samples[index]!.wall <= goal * 1000)]);
  printTable(
    `member references, each a new CLI process: ${warm.fileCount} files, ${MEMBER}; wall / CPU (the CLI's and the warm service's), with the warm language service beside languageServiceIdleMinutes: 0 (load average ${load.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end)`,
    ['measure', 'warm service', 'in process', 'goal (wall)', 'verdict'],
    rows,
  );
  printTable('member references, the answers', ['check', 'warm service', 'in process', 'goal', 'verdict'], [
    ['cold, repeat and after the body edit name the same files (scan and lint)', String(warm.same), String(inProcess.same), 'true', verdict(warm.same && inProcess.same)],
    ['the added use is in the next answer (scan and lint)', String(warm.seen), String(inProcess.seen), 'true', verdict(warm.seen && inProcess.seen)],
    ['both ways give the same answers', warm.answers === inProcess.answers ? 'same' : 'different', '', 'same', verdict(warm.answers === inProcess.answers)],
  ]);
}

const MEASURES: readonly (readonly [string, number])[] = [
  ['scan --importers, cold (no cache)', 15],
  ['scan --importers, unchanged repeat', 1],
  ['scan --importers, one file edited (a typed method body the answer loaded)', 3],
  ['scan --importers, one file edited to add a use (computed again)', 3],
  ['plan lint of the member change, cold (no cache)', 15],
  ['plan lint, unchanged repeat', 1],
  ['plan lint, one file edited (a typed method body the answer loaded)', 3],
  ['plan lint, one file edited to add a use (computed again)', 3],
];

interface Sequence {
  readonly fileCount: number;
  readonly samples: readonly Sample[];
  readonly same: boolean;
  readonly seen: boolean;
  /** Every answer, for comparing the two ways. */
  readonly answers: string;
}

/** The eight measures on a fresh copy of the generated repository, with the warm service or without it. */
async function measureSequence(mode: 'warm' | 'in-process'): Promise<Sequence> {
  const root = mkdtempSync(join(tmpdir(), 'dagent-bench-member-'));
  const plan = join(root, '..', `${root.split('/').at(-1) ?? 'plan'}-plan.json`);
  try {
    const files = generateScanRepo({ modules: MODULES, seed: 7 });
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    const configure = (): void => {
      mkdirSync(join(root, '.dagent'), { recursive: true });
      writeFileSync(join(root, '.dagent', 'config.json'), JSON.stringify({ languageServiceIdleMinutes: mode === 'warm' ? 10 : 0 }));
    };
    configure();
    writeFileSync(
      plan,
      JSON.stringify({
        goal: 'Rename Item60.total60',
        nodes: [{ id: 'edit', kind: 'edit', title: 'Rename total60', instructions: 'Rename Item60.total60 to grandTotal60.', reads: ['src/pkg2/m60.ts'], writes: ['src/pkg2/m60.ts'], dependsOn: [], changes: [MEMBER] }],
      }),
    );
    const scan = (): Promise<Sample> => cli(root, ['scan', '--importers', MEMBER, '--json']);
    const lint = (): Promise<Sample> => cli(root, ['plan', '--from', plan]);
    const users = (sample: Sample): string => (JSON.parse(sample.stdout) as { importers: { file: string }[] }).importers.map((importer) => importer.file).join(' ');
    const linted = (sample: Sample): string => [...sample.stdout.matchAll(/lint error: (\S+?):\d+ uses Item60\.total60/g)].map((match) => match[1]).join(' ');

    const scanCold = await scan();
    const scanRepeat = await scan();
    editBody(root);
    const scanBody = await scan();
    addUse(root, USE_ADDED[0]);
    const scanUse = await scan();

    // The lint starts cold too: no answers kept, no service running.
    await cli(root, ['language-service', '--stop']);
    rmSync(join(root, '.dagent'), { recursive: true, force: true });
    configure();
    const lintCold = await lint();
    const lintRepeat = await lint();
    editBody(root);
    const lintBody = await lint();
    addUse(root, USE_ADDED[1]);
    const lintUse = await lint();
    await cli(root, ['language-service', '--stop']);

    const same = users(scanCold) === users(scanRepeat) && users(scanRepeat) === users(scanBody) && linted(lintCold) === linted(lintRepeat) && linted(lintRepeat) === linted(lintBody);
    const seen = users(scanUse).includes(USE_ADDED[0]) && !users(scanBody).includes(USE_ADDED[0]) && linted(lintUse).includes(USE_ADDED[1]) && !linted(lintBody).includes(USE_ADDED[1]);
    const samples = [scanCold, scanRepeat, scanBody, scanUse, lintCold, lintRepeat, lintBody, lintUse];
    return { fileCount: Object.keys(files).length, samples, same, seen, answers: [users(scanCold), users(scanUse), linted(lintCold), linted(lintUse)].join(' | ') };
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(plan, { force: true });
  }
}

/**
 * Runs the CLI in the workspace; the process reports its own CPU time on exit (on a shared machine,
 * wall time is mostly waiting), and the warm service's CPU over the command is added from /proc.
 */
async function cli(cwd: string, args: readonly string[]): Promise<Sample> {
  const cpuReport = `data:text/javascript,${encodeURIComponent("process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\ncpu-ms ' + Math.round((u.user + u.system) / 1000) + '\\n'); });")}`;
  const serviceBefore = await serviceCpuMs(cwd);
  const start = performance.now();
  const { stdout, stderr } = await run(process.execPath, ['--import', cpuReport, BIN, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  const wall = performance.now() - start;
  const serviceAfter = args[0] === 'language-service' ? undefined : await serviceCpuMs(cwd);
  const serviceCpu = serviceAfter === undefined ? 0 : serviceAfter.pid === serviceBefore?.pid ? serviceAfter.ms - serviceBefore.ms : serviceAfter.ms;
  return { wall, cpu: Number(/cpu-ms (\d+)/.exec(stderr)?.[1] ?? Number.NaN) + serviceCpu, stdout };
}

/** The warm service's pid and CPU time so far (user + system, from /proc), or undefined when none runs. */
async function serviceCpuMs(cwd: string): Promise<{ pid: number; ms: number } | undefined> {
  const { stdout } = await run(process.execPath, [BIN, 'language-service', '--json'], { cwd });
  const pid = (JSON.parse(stdout) as { service?: { pid: number } }).service?.pid;
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { pid, ms: (ticks * 1000) / CLOCK_TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Changes what a typed method returns: nothing another file sees. */
function editBody(root: string): void {
  const path = join(root, BODY_EDITED);
  const text = readFileSync(path, 'utf8');
  const edited = text.replace(/return 61;|return 62;/, (found) => (found === 'return 61;' ? 'return 62;' : 'return 61;'));
  if (edited === text) throw new Error(`${BODY_EDITED} has no typed body to edit`);
  writeFileSync(path, edited);
}

/** Makes a file call the member. */
function addUse(root: string, file: string): void {
  const path = join(root, file);
  writeFileSync(path, `import { make60 as useMake60 } from './m60.js';\n${readFileSync(path, 'utf8')}export const useTotal60 = useMake60().total60();\n`);
}
