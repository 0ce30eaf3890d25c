import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Plan } from '../engine/index.js';
import { dagent, planOf } from './lib/dagent-runs.js';
import { startBenchPostgres, type BenchPostgres } from './lib/postgres-server.js';
import { criticalPathMs, w2, w3, type Workload } from './lib/scheduler-workloads.js';
import { median, printTable, verdict } from './lib/table.js';

export type RealRunStore = 'sqlite' | 'postgres';

/** Where the run's workspace is: a plain folder (nodes share it), or a git repository (each node isolated, `isolation: worktree`). */
export type RealRunWorkspace = 'folder' | 'git';

export interface RealRun {
  readonly workload: string;
  readonly store: RealRunStore;
  readonly workspace: RealRunWorkspace;
  readonly nodes: number;
  /** From the run's `run/started` to its `run/succeeded`, by the log's timestamps. */
  readonly wallMs: number;
  /** The critical path by the nodes' nominal latencies. */
  readonly boundMs: number;
  /** The critical path by what each node's model turns took (first call to last answer, late timers included). */
  readonly measuredBoundMs: number;
  /** Dependency's `node/succeeded` → dependent's `node/started`, p50 over the hops. */
  readonly hopP50Ms: number;
  /** CPU time of the `dagent run` process (every thread) from `run/started` to `run/succeeded`: the run without its start-up. */
  readonly runCpuMs: number;
  /** CPU time of the whole `dagent run` process, start-up and exit included. */
  readonly processCpuMs: number;
}

/** Issue 27: W2 and W3 as real runs in process, wall time over their critical path. */
export const REAL_RUN_GOALS: Readonly<Record<RealRunStore, number>> = { sqlite: 1.1, postgres: 1.2 };

export const REAL_RUN_WORKLOADS: readonly (() => Workload)[] = [w2, w3];

const CPU_SAMPLER = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'lib', 'cpu-sampler.js')).href;

/**
 * A workload as a real `dagent run` with the in-process scheduler, on SQLite or on a database of
 * `postgres`: every node is an agent whose scripted model takes the node's latency (its tools,
 * snapshots and log as usual). `profileDir`: the run process writes a CPU profile there.
 * `workspace: 'git'`: the workspace is a git repository, where each node runs isolated by default.
 */
export async function realRun(workload: Workload, store: RealRunStore, options: { postgres?: BenchPostgres; profileDir?: string; workspace?: RealRunWorkspace } = {}): Promise<RealRun> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-real-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  if (options.workspace === 'git') gitRepository(workspace, dir);
  const samples = join(dir, 'cpu.json');
  try {
    const db = store === 'sqlite' ? join(dir, 'dagent.db') : await postgresDatabase(options.postgres, workload);
    const { plan, script } = planOf(workload);
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
    // Its own home: the user's memories are this run's (none), not the machine user's.
    const env = { HOME: dir, XDG_DATA_HOME: join(dir, 'data') };
    const flags = ['--db', db, '--model', `scripted:${join(dir, 'script.json')}`, '--approval', 'auto'];
    const created = await dagent(['plan', '--from', join(dir, 'plan.json'), '--json', ...flags], workspace, { env });
    const runId = (JSON.parse(created) as { runId: string }).runId;
    await dagent(['approve', runId, ...flags], workspace, { env });
    const nodeArgs = ['--import', CPU_SAMPLER, ...(options.profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.profileDir])];
    await dagent(['run', runId, '--concurrency', String(workload.concurrency), ...flags], workspace, { nodeArgs, env: { ...env, DAGENT_BENCH_CPU_SAMPLES: samples } });
    const log = store === 'sqlite' ? sqliteLog(db, runId) : await postgresLog(db, runId);
    const cpu = JSON.parse(readFileSync(samples, 'utf8')) as number[];
    return { workload: workload.name, store, workspace: options.workspace ?? 'folder', nodes: workload.nodes.length, boundMs: criticalPathMs(workload.nodes, workload.latencyMs), ...fromLog(log, workload, cpu) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- real-runs` (and the end of `step-cost`): W2 and W3 as real runs in process on
 * SQLite and on PostgreSQL, interleaved, `REAL_RUN_ROUNDS` rounds (default 3); each row the median
 * of its rounds, with the goal's verdict. `REAL_RUN_STORES=sqlite` leaves PostgreSQL out;
 * `REAL_RUN_PROFILE=DIR` writes each run process's CPU profile to DIR. On SQLite each workload
 * also runs in a git repository, as most users' runs do (each node isolated: `isolation:
 * worktree`); `REAL_RUN_WORKSPACES=folder` leaves that out.
 */
export async function runRealRunsBench(): Promise<void> {
  const rounds = Number(process.env.REAL_RUN_ROUNDS ?? 3);
  const stores = (process.env.REAL_RUN_STORES?.split(',') ?? ['sqlite', 'postgres']) as RealRunStore[];
  const profileDir = process.env.REAL_RUN_PROFILE;
  const workspaces = (process.env.REAL_RUN_WORKSPACES?.split(',') ?? ['folder', 'git']) as RealRunWorkspace[];
  const postgres = stores.includes('postgres') ? await startBenchPostgres() : undefined;
  const loads = [loadavg()[0]!];
  const runs: RealRun[] = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const workload of REAL_RUN_WORKLOADS.map((make) => make())) {
        const places = stores.flatMap((store) => workspaces.filter((workspace) => workspace === 'folder' || store === 'sqlite').map((workspace) => ({ store, workspace })));
        for (const { store, workspace } of places) {
          const run = await realRun(workload, store, { workspace, ...(postgres === undefined ? {} : { postgres }), ...(profileDir === undefined ? {} : { profileDir }) });
          runs.push(run);
          process.stdout.write(`  measured: ${run.workload} ${run.store}${workspace === 'git' ? ' in a git repository' : ''}: wall ${run.wallMs} ms, ratio ${(run.wallMs / run.boundMs).toFixed(3)}, run CPU ${run.runCpuMs.toFixed(0)} ms (process ${run.processCpuMs.toFixed(0)} ms), load ${loadavg()[0]!.toFixed(1)}\n`);
        }
      }
      loads.push(loadavg()[0]!);
    }
  } finally {
    postgres?.stop();
  }
  printRealRuns(runs, rounds, loads);
}

function printRealRuns(runs: readonly RealRun[], rounds: number, loads: readonly number[]): void {
  const rows: string[][] = [];
  for (const workload of [...new Set(runs.map((run) => run.workload))]) {
    for (const [store, workspace] of [...new Set(runs.map((run) => `${run.store} ${run.workspace}`))].map((key) => key.split(' ') as [RealRunStore, RealRunWorkspace])) {
      const mine = runs.filter((run) => run.workload === workload && run.store === store && run.workspace === workspace);
      if (mine.length === 0) continue;
      const ratios = mine.map((run) => run.wallMs / run.boundMs);
      const goal = REAL_RUN_GOALS[store];
      rows.push([
        workload,
        workspace === 'git' ? `${store}, git repository` : store,
        String(mine[0]!.nodes),
        median(mine.map((run) => run.wallMs)).toFixed(0),
        mine[0]!.boundMs.toFixed(0),
        `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
        median(mine.map((run) => run.wallMs / run.measuredBoundMs)).toFixed(3),
        median(mine.map((run) => run.runCpuMs / run.nodes)).toFixed(1),
        median(mine.map((run) => run.hopP50Ms)).toFixed(0),
        `≤ ${goal} × critical path`,
        verdict(median(ratios) <= goal),
      ]);
    }
  }
  printTable(
    `W2 and W3 as real \`dagent run\`s, in-process scheduler (scripted model, each node's turn its latency; median of ${rounds} interleaved rounds; load average ${loads.map((load) => load.toFixed(1)).join(' → ')})`,
    ['workload', 'store', 'nodes', 'wall ms', 'critical path ms', 'ratio (min–max)', 'ratio*', 'CPU ms/node', 'hop p50 ms', 'goal', ''],
    rows,
  );
  process.stdout.write(
    "wall: run/started → run/succeeded in the log. ratio*: over the critical path by the time each node's model turns really took (first request to last answer; late timers included).\n" +
      'CPU ms/node: the `dagent run` process\'s CPU (every thread) from run/started to run/succeeded, over the nodes; PostgreSQL\'s own processes not counted.\n' +
      'git repository: the workspace is a git repository with one commit, so each node runs isolated (isolation: worktree, the default there): a node that can only read shares a view of the run branch, an edit gets its own worktree, commit and merge.\n',
  );
}

async function postgresDatabase(server: BenchPostgres | undefined, workload: Workload): Promise<string> {
  if (server === undefined) throw new Error('a real run on PostgreSQL needs the bench server');
  databases += 1;
  return server.database(`bench_real_${workload.name.toLowerCase()}_${process.pid}_${databases}`);
}
let databases = 0;

interface LogRow {
  readonly node_id: string | null;
  readonly type: string;
  readonly created_at: string;
}

interface RunLogRows {
  readonly rows: readonly LogRow[];
  readonly plan: Plan;
}

function sqliteLog(path: string, runId: string): RunLogRows {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT node_id, type, created_at FROM events WHERE run_id = ? ORDER BY seq').all(runId) as LogRow[];
    const plan = JSON.parse((db.prepare('SELECT body FROM plans WHERE run_id = ? ORDER BY version DESC LIMIT 1').get(runId) as { body: string }).body) as Plan;
    return { rows, plan };
  } finally {
    db.close();
  }
}

async function postgresLog(url: string, runId: string): Promise<RunLogRows> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<LogRow>('SELECT node_id, type, created_at FROM events WHERE run_id = $1 ORDER BY seq', [runId]);
    const { rows: plans } = await client.query<{ body: string }>('SELECT body FROM plans WHERE run_id = $1 ORDER BY version DESC LIMIT 1', [runId]);
    return { rows, plan: JSON.parse(plans[0]!.body) as Plan };
  } finally {
    await client.end();
  }
}

function fromLog({ rows, plan }: RunLogRows, workload: Workload, cpu: readonly number[]): Omit<RealRun, 'workload' | 'store' | 'workspace' | 'nodes' | 'boundMs'> {
  const at = (row: LogRow): number => Date.parse(row.created_at);
  const started = rows.filter((row) => row.type === 'run/started').at(-1)!;
  const ended = rows.find((row) => row.type === 'run/succeeded');
  if (ended === undefined) throw new Error(`bench run of ${workload.name} did not succeed`);
  const nodeStarted = new Map(rows.filter((row) => row.type === 'node/started').map((row) => [row.node_id!, at(row)]));
  const nodeSucceeded = new Map(rows.filter((row) => row.type === 'node/succeeded').map((row) => [row.node_id!, at(row)]));
  const hops = plan.nodes.filter((node) => node.dependsOn.length > 0).map((node) => nodeStarted.get(node.id)! - Math.max(...node.dependsOn.map((id) => nodeSucceeded.get(id)!)));
  // What each node's model turns really took: its first request recorded to its last answer.
  const took = new Map<string, number>();
  for (const node of workload.nodes) {
    const own = rows.filter((row) => row.node_id === node.id);
    const first = own.find((row) => row.type === 'request/header');
    const last = own.filter((row) => row.type === 'assistant/message').at(-1);
    took.set(node.id, first === undefined || last === undefined ? 0 : at(last) - at(first));
  }
  return {
    wallMs: at(ended) - at(started),
    measuredBoundMs: criticalPathMs(workload.nodes, took),
    hopP50Ms: median(hops),
    runCpuMs: (cpuAt(cpu, at(ended)) - cpuAt(cpu, at(started))) / 1_000,
    processCpuMs: (cpu.at(-1)! - cpu[1]!) / 1_000,
  };
}

/** CPU µs at a wall-clock time (ms), interpolated between the samples around it (`bench/lib/cpu-sampler.ts`). */
function cpuAt(samples: readonly number[], atMs: number): number {
  for (let index = 2; index < samples.length; index += 2) {
    const wall = samples[index]!;
    if (wall < atMs) continue;
    const before = samples[index - 2]!;
    const cpu = samples[index + 1]!;
    const beforeCpu = samples[index - 1]!;
    return wall === before ? cpu : beforeCpu + ((cpu - beforeCpu) * (atMs - before)) / (wall - before);
  }
  return samples.at(-1) ?? 0;
}

/** A git repository with one commit at `workspace`, its identity and configuration the bench's own (`home`). */
function gitRepository(workspace: string, home: string): void {
  writeFileSync(join(workspace, 'README.md'), '# bench\n');
  const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@localhost', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@localhost' };
  for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'initial']]) execFileSync('git', args, { cwd: workspace, env, stdio: 'ignore' });
}
