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
  const root = mkdtempSync(join(tmpdir(), 'dagent-bench-member-'));
  try {
    const files = generateScanRepo({ modules: MODULES, seed: 7 });
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    const plan = join(root, '..', `${root.split('/').at(-1) ?? 'plan'}-plan.json`);
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
    const load = loadavg()[0] ?? 0;

    const scanCold = await scan();
    const scanRepeat = await scan();
    editBody(root);
    const scanBody = await scan();
    addUse(root, USE_ADDED[0]);
    const scanUse = await scan();

    rmSync(join(root, '.dagent'), { recursive: true, force: true });
    const lintCold = await lint();
    const lintRepeat = await lint();
    editBody(root);
    const lintBody = await lint();
    addUse(root, USE_ADDED[1]);
    const lintUse = await lint();

    const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
    const row = (name: string, sample: Sample, goal: number): string[] => [name, seconds(sample.wall), seconds(sample.cpu), `≤ ${goal} s`, verdict(sample.wall <= goal * 1000)];
    printTable(
      `member references, each a new CLI process: ${Object.keys(files).length} files, ${MEMBER} (load average ${load.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end)`,
      ['measure', 'wall', 'CPU', 'goal', 'verdict'],
      [
        row('scan --importers, cold (no cache)', scanCold, 15),
        row('scan --importers, unchanged repeat', scanRepeat, 1),
        row('scan --importers, one file edited (a typed method body the answer loaded)', scanBody, 3),
        row('scan --importers, one file edited to add a use (computed again)', scanUse, 3),
        row('plan lint of the member change, cold (no cache)', lintCold, 15),
        row('plan lint, unchanged repeat', lintRepeat, 1),
        row('plan lint, one file edited (a typed method body the answer loaded)', lintBody, 3),
        row('plan lint, one file edited to add a use (computed again)', lintUse, 3),
      ],
    );
    const same = users(scanCold) === users(scanRepeat) && users(scanRepeat) === users(scanBody) && linted(lintCold) === linted(lintRepeat) && linted(lintRepeat) === linted(lintBody);
    const seen = users(scanUse).includes(USE_ADDED[0]) && !users(scanBody).includes(USE_ADDED[0]) && linted(lintUse).includes(USE_ADDED[1]) && !linted(lintBody).includes(USE_ADDED[1]);
    printTable('member references, the answers', ['check', 'result', 'goal', 'verdict'], [
      ['cold, repeat and after the body edit name the same files (scan and lint)', `${users(scanCold)} | ${linted(lintCold)}`, 'same', verdict(same)],
      ['the added use is in the next answer (scan and lint)', `${users(scanUse)} | ${linted(lintUse)}`, 'named', verdict(seen)],
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(join(root, '..', `${root.split('/').at(-1) ?? 'plan'}-plan.json`), { force: true });
  }
}

/** Runs the CLI in the workspace; the process reports its own CPU time on exit (on a shared machine, wall time is mostly waiting). */
async function cli(cwd: string, args: readonly string[]): Promise<Sample> {
  const cpuReport = `data:text/javascript,${encodeURIComponent("process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\ncpu-ms ' + Math.round((u.user + u.system) / 1000) + '\\n'); });")}`;
  const start = performance.now();
  const { stdout, stderr } = await run(process.execPath, ['--import', cpuReport, BIN, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  return { wall: performance.now() - start, cpu: Number(/cpu-ms (\d+)/.exec(stderr)?.[1] ?? Number.NaN), stdout };
}

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
