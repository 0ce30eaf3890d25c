import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger, makeWorkerUtils, run as runGraphile } from 'graphile-worker';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Plan } from '../engine/index.js';
import { DAGENT_BIN, dagent, planOf } from './lib/dagent-runs.js';
import { startBenchPostgres, type BenchPostgres } from './lib/postgres-server.js';
import { criticalPathMs, w2, w3, type Workload } from './lib/scheduler-workloads.js';
import { printTable } from './lib/table.js';

/**
 * `npm run bench -- workers`: scale-out through the PostgreSQL job queue.
 *
 * 1. The queue's own dispatch hop (job added → its handler running, one job at a time):
 *    graphile-worker (LISTEN/NOTIFY) against pg-boss 10 (polling, at its shortest interval).
 * 2. W2 and W3 of the scheduler bench as real dagent runs (each node one scripted model turn that
 *    takes the node's latency), by the in-process scheduler and by `run --workers` with 1, 2 and
 *    4 `dagent worker` processes: wall time over the critical-path bound, and the dispatch hop
 *    (a dependency's outcome committed → the dependent claimed by a worker), p50 and p95. Each
 *    fleet runs two runs, each measured: its first, just started, and a second (a standing fleet,
 *    as a team's is: its workers have run nodes before). The
 *    workers share the workload's concurrency (each runs width / N at a time): a slot beyond the
 *    stage's width is not free, since every idle slot of every worker asks the queue for a job
 *    when jobs are added. A worker warms up before it says it is ready (`dagent worker`'s
 *    warm-up: a rehearsal of the node path in memory); what that costs its start (spawn → ready) is
 *    printed under the table. BENCH_WORKERS_WARM_UP=off starts them with `--no-warm-up`;
 *    BENCH_WORKERS_RUNS=N measures N runs per fleet; BENCH_WORKERS_EVENTS=DIR keeps each run's events.
 */

const QUEUE_JOBS = 60;
/** BENCH_WORKERS_WARM_UP=off: the workers start with `--no-warm-up`. */
const WARM_UP_OFF = process.env.BENCH_WORKERS_WARM_UP === 'off';
/** BENCH_WORKERS_EVENTS=DIR: each measured run's events (seq, node, type, time, payload) are written to DIR as JSON (`W3-4-2.json`: W3, four workers, the fleet's 2nd run), for a look at where its time went. */
const EVENTS_DIR = process.env.BENCH_WORKERS_EVENTS;
/** BENCH_WORKERS_RUNS=N: each fleet runs N runs, each measured (2 by default: its first and a standing fleet's). */
const FLEET_RUNS = Math.max(1, Number(process.env.BENCH_WORKERS_RUNS ?? 2) || 2);
/** Each worker's start, spawn → ready (ms), over the bench. */
const workerStarts: number[] = [];
const QUIET = new Logger(() => () => undefined);

export async function runWorkersBench(): Promise<void> {
  const server = await startBenchPostgres();
  // Child processes and pools keep the loop alive; this makes sure a lost promise cannot end the bench silently.
  const keepAlive = setInterval(() => undefined, 1_000);
  try {
    if (process.env.BENCH_WORKERS_ROWS === undefined) await queueLatency(server);
    const rows: string[][] = [];
    // BENCH_WORKERS_ROWS=W2:1,W3:4 measures only those rows (workload:worker processes, 0 = in process), and skips the queue table.
    const only = process.env.BENCH_WORKERS_ROWS?.split(',');
    for (const workload of [w2(), w3()]) {
      for (const workers of [0, 1, 2, 4]) {
        if (only !== undefined && !only.includes(`${workload.name}:${workers}`)) continue;
        const measured = await dagentRows(server, workload, workers).catch((error: unknown) => [[workload.name, `${workers} workers`, `failed: ${(error as Error).message.split('\n')[0]}`, '', '', '', '', '']]);
        for (const row of measured) process.stdout.write(`  measured: ${row.join(' · ')}\n`);
        rows.push(...measured);
      }
    }
    printTable(
      `W2 and W3 as dagent runs: in-process scheduler vs \`run --workers\` with N worker processes (a new fleet's first run, then its 2nd; a shared 2-core machine)`,
      ['workload', 'engine', 'wall ms', 'critical path ms', 'wall / bound', 'hop p50 ms', 'hop p95 ms', 'hop p50: noticed · started · claimed ms'],
      rows,
    );
    if (workerStarts.length > 0) {
      const warmUp = WARM_UP_OFF ? 'started with --no-warm-up' : 'its warm-up included';
      process.stdout.write(`a worker's start, spawn → ready (${warmUp}): p50 ${fixed(percentile(workerStarts, 0.5))} ms, max ${fixed(Math.max(...workerStarts))} ms over ${workerStarts.length} workers\n`);
    }
  } finally {
    clearInterval(keepAlive);
    server.stop();
  }
}

async function queueLatency(server: BenchPostgres): Promise<void> {
  const graphile = await graphileHops(await server.database('bench_graphile'));
  const boss = await pgBossHops(await server.database('bench_pgboss'));
  printTable(
    `queue dispatch hop: job added → handler running (${QUEUE_JOBS} jobs, one at a time)`,
    ['queue', 'wake-up', 'p50 ms', 'p95 ms'],
    [
      ['graphile-worker 0.17', 'LISTEN/NOTIFY (poll 2 s as fallback)', fixed(percentile(graphile, 0.5)), fixed(percentile(graphile, 0.95))],
      ['pg-boss 10', 'polling every 0.5 s (its minimum)', fixed(percentile(boss, 0.5)), fixed(percentile(boss, 0.95))],
    ],
  );
}

async function graphileHops(url: string): Promise<number[]> {
  const utils = await makeWorkerUtils({ connectionString: url, logger: QUIET });
  await utils.migrate();
  let arrived: ((at: number) => void) | undefined;
  const runner = await runGraphile({ connectionString: url, concurrency: 1, noHandleSignals: true, pollInterval: 2_000, logger: QUIET, taskList: { hop: async () => arrived?.(performance.now()) } });
  const hops: number[] = [];
  try {
    for (let index = 0; index < QUEUE_JOBS; index += 1) {
      const at = new Promise<number>((resolve) => (arrived = resolve));
      const sent = performance.now();
      await utils.addJob('hop', { index });
      hops.push((await at) - sent);
    }
  } finally {
    await runner.stop();
    await utils.release();
  }
  return hops;
}

async function pgBossHops(url: string): Promise<number[]> {
  const boss = new PgBoss({ connectionString: url });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue('hop');
  let arrived: ((at: number) => void) | undefined;
  await boss.work('hop', { pollingIntervalSeconds: 0.5, batchSize: 1 }, async () => arrived?.(performance.now()));
  const hops: number[] = [];
  try {
    for (let index = 0; index < QUEUE_JOBS; index += 1) {
      const at = new Promise<number>((resolve) => (arrived = resolve));
      const sent = performance.now();
      await boss.send('hop', { index });
      hops.push((await at) - sent);
    }
  } finally {
    await boss.stop({ graceful: false, wait: false });
  }
  return hops;
}

/**
 * The workload's rows: in process, one run; through `workerCount` workers, the first run of a
 * fleet started for it and then a second run on the same fleet (a standing fleet, as one serving
 * a team runs: its processes have run nodes before, so their code is compiled and warm).
 */
async function dagentRows(server: BenchPostgres, workload: Workload, workerCount: number): Promise<string[][]> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-workers-'));
  const processes: ChildProcess[] = [];
  try {
    const { plan, script } = planOf(workload);
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
    const url = await server.database(`bench_${workload.name.toLowerCase()}_${workerCount}_${process.pid}`);
    const flags = ['--db', url, '--model', `scripted:${join(dir, 'script.json')}`, '--approval', 'auto'];
    // Each run in a workspace of its own: the later ones start from the files the example begins with too.
    const runs: { runId: string; workspace: string }[] = [];
    for (const name of workerCount === 0 ? ['ws'] : Array.from({ length: FLEET_RUNS }, (_, index) => (index === 0 ? 'ws' : `ws-${index + 1}`))) {
      const workspace = join(dir, name);
      mkdirSync(workspace);
      const created = await dagent(['plan', '--from', join(dir, 'plan.json'), '--json', ...flags], workspace);
      runs.push({ runId: (JSON.parse(created) as { runId: string }).runId, workspace });
      await dagent(['approve', runs.at(-1)!.runId, ...flags], workspace);
    }
    const bound = criticalPathMs(workload.nodes, workload.latencyMs);
    const row = async (engine: string, runId: string): Promise<string[]> => {
      const measured = await measureFromLog(url, runId, workerCount > 0);
      if (EVENTS_DIR !== undefined) await dumpEvents(url, runId, join(EVENTS_DIR, `${workload.name}-${workerCount}-${/its (\d+)/.exec(engine)?.[1] ?? 1}.json`));
      return [workload.name, engine, fixed(measured.wallMs), fixed(bound), `${(measured.wallMs / bound).toFixed(2)}×`, fixed(percentile(measured.hops, 0.5)), fixed(percentile(measured.hops, 0.95)), partsOf(measured.parts)];
    };
    if (workerCount === 0) {
      const { runId, workspace } = runs[0]!;
      await dagent(['run', runId, '--concurrency', String(workload.concurrency), ...flags], workspace);
      return [await row('in-process scheduler', runId)];
    }
    const slots = String(Math.ceil(workload.concurrency / workerCount));
    for (let index = 0; index < workerCount; index += 1) processes.push(await startWorker(['worker', '--concurrency', slots, ...(WARM_UP_OFF ? ['--no-warm-up'] : []), ...flags], runs[0]!.workspace));
    const fleet = `--workers, ${workerCount} worker process${workerCount > 1 ? 'es' : ''}`;
    const measured: string[][] = [];
    for (const [index, { runId, workspace }] of runs.entries()) {
      await dagent(['run', runId, '--workers', ...flags], workspace);
      measured.push(await row(index === 0 ? fleet : `${fleet}, its ${ordinal(index + 1)} run`, runId));
    }
    return measured;
  } finally {
    for (const child of processes) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time from the run's last `run/started` to its `run/succeeded`, and each dependent's hop, from the log's timestamps. */
async function measureFromLog(url: string, runId: string, dispatched: boolean): Promise<{ wallMs: number; hops: number[]; parts: (readonly [number, number, number])[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ node_id: string | null; type: string; created_at: string }>('SELECT node_id, type, created_at FROM events WHERE run_id = $1 ORDER BY seq', [runId]);
    const at = (row: { created_at: string }): number => Date.parse(row.created_at);
    const started = rows.filter((row) => row.type === 'run/started').at(-1)!;
    const ended = rows.find((row) => row.type === 'run/succeeded');
    if (ended === undefined) throw new Error(`bench run ${runId} did not succeed`);
    const finishedType = dispatched ? 'attempt/finished' : 'node/succeeded';
    const startedType = dispatched ? 'attempt/claimed' : 'node/started';
    const finished = new Map(rows.filter((row) => row.type === finishedType).map((row) => [row.node_id!, at(row)]));
    const begun = new Map(rows.filter((row) => row.type === startedType).map((row) => [row.node_id!, at(row)]));
    const { rows: planRows } = await client.query<{ body: string }>('SELECT body FROM plans WHERE run_id = $1 ORDER BY version DESC LIMIT 1', [runId]);
    const plan = JSON.parse(planRows[0]!.body) as Plan;
    const dependents = plan.nodes.filter((node) => node.dependsOn.length > 0);
    const hops = dependents.map((node) => begun.get(node.id)! - Math.max(...node.dependsOn.map((id) => finished.get(id)!)));
    if (!dispatched) return { wallMs: at(ended) - at(started), hops, parts: [] };
    // The hop's three parts: the scheduler notices the outcome (recorded as the dependency's
    // `node/succeeded`), it starts the dependent (`node/started`), a worker claims it.
    const recorded = new Map(rows.filter((row) => row.type === 'node/succeeded').map((row) => [row.node_id!, at(row)]));
    const nodeStarted = new Map(rows.filter((row) => row.type === 'node/started').map((row) => [row.node_id!, at(row)]));
    const parts = dependents.map((node) => {
      const last = node.dependsOn.reduce((a, b) => (finished.get(a)! >= finished.get(b)! ? a : b));
      const allRecorded = Math.max(...node.dependsOn.map((id) => recorded.get(id)!));
      return [recorded.get(last)! - finished.get(last)!, nodeStarted.get(node.id)! - allRecorded, begun.get(node.id)! - nodeStarted.get(node.id)!] as const;
    });
    return { wallMs: at(ended) - at(started), hops, parts };
  } finally {
    await client.end();
  }
}

/** The run's events as the store has them, to `file` (BENCH_WORKERS_EVENTS). */
async function dumpEvents(url: string, runId: string, file: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT seq, node_id, type, created_at, payload FROM events WHERE run_id = $1 ORDER BY seq', [runId]);
    mkdirSync(EVENTS_DIR!, { recursive: true });
    writeFileSync(file, JSON.stringify(rows));
  } finally {
    await client.end();
  }
}

/** A worker process, once it says it is ready. */
function startWorker(args: readonly string[], cwd: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const spawned = performance.now();
    const child = spawn(process.execPath, [DAGENT_BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes(' ready ·')) return;
      workerStarts.push(performance.now() - spawned);
      resolve(child);
    });
    child.once('close', (code) => reject(new Error(`dagent worker exited ${code}: ${err.slice(-500)}`)));
  });
}

/** The hop's parts at their medians: outcome → the scheduler records it, → it starts the dependent, → a worker claims it. */
function partsOf(parts: readonly (readonly [number, number, number])[]): string {
  if (parts.length === 0) return '-';
  return [0, 1, 2].map((index) => fixed(percentile(parts.map((part) => part[index]!), 0.5))).join(' · ');
}

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

function fixed(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : '-';
}

const ORDINAL_SUFFIXES: Readonly<Record<string, string>> = { one: 'st', two: 'nd', few: 'rd', other: 'th' };
const ordinals = new Intl.PluralRules('en', { type: 'ordinal' });

/** 2 → "2nd", 11 → "11th", 21 → "21st". */
function ordinal(count: number): string {
  return `${count}${ORDINAL_SUFFIXES[ordinals.select(count)] ?? 'th'}`;
}
