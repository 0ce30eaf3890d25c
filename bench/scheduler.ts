import { EventEmitter, setMaxListeners } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { runSchedule, type ScheduleMode } from '../engine/index.js';
import { openDurableRun } from './lib/scheduler-durable.js';
import { buildFunctionalGraph, buildStateGraph, createCheckpointer, type NodeWork } from './lib/scheduler-langgraph.js';
import { batchBoundMs, criticalPathMs, simulateWork, w1, w2, w3, type Workload } from './lib/scheduler-workloads.js';
import { median, printTable, verdict } from './lib/table.js';

export interface SchedulerBenchOptions {
  /** Timed runs per workload and engine; medians are reported. Default 5 for W1-200, 3 otherwise. */
  readonly repetitions?: number;
  /** Print the table (default true). */
  readonly print?: boolean;
}

export interface SchedulerBenchRow {
  readonly workload: string;
  readonly engine: string;
  readonly nodes: number;
  /** Median wall time. */
  readonly wallMs: number;
  /** The bound this engine is judged by (batch mode: batch-synchronous; others: critical path), from the nominal latencies. */
  readonly boundMs: number;
  /** The same bound from the latencies the nodes really took in each run (median over runs). */
  readonly measuredBoundMs: number;
  /** Median over runs of wall / nominal bound. */
  readonly ratio: number | undefined;
  /** Median over runs of wall / measured bound: the scheduler's own share, without timer lateness. */
  readonly measuredRatio: number | undefined;
  /** (wall − measured bound) / nodes; for no-op work simply wall / nodes. */
  readonly overheadUsPerNode: number;
  /** Process CPU time (user + system) per node during the run (printed for no-op work only, where it is all overhead). */
  readonly cpuUsPerNode: number;
  /** Time from a node's last dependency finishing to the node starting, median and 95th percentile over all hops of all runs. */
  readonly hopMs: { readonly p50: number; readonly p95: number } | undefined;
  readonly goal: string;
  readonly met: boolean | undefined;
}

interface Engine {
  readonly name: string;
  /** Whether the goals apply to this engine. */
  readonly judged: boolean;
  readonly bound: 'critical path' | 'batch bound';
  /** Prepares one run that does `work` for every node; returns the function to time and its cleanup. */
  prepare(workload: Workload, work: NodeWork): Promise<{ run: () => Promise<void>; cleanup: () => Promise<void> }>;
}

interface RunMeasure {
  readonly wallMs: number;
  readonly cpuUs: number;
  readonly measuredBoundMs: number;
  readonly hopsMs: readonly number[];
}

const RATIO_GOAL = 1.01;
const OVERHEAD_GOAL_US = 50;

/** Our scheduler; `durable: false` is a reference row without any store, to show the storage share. */
function dagentEngine(mode: ScheduleMode, durable = true): Engine {
  return {
    name: `dagent ${mode}, ${durable ? 'durable SQLite' : 'no store (reference)'}`,
    judged: durable,
    bound: mode === 'batch' ? 'batch bound' : 'critical path',
    async prepare(workload, work) {
      const store = durable ? await openDurableRun(workload.nodes) : undefined;
      const run = async (): Promise<void> => {
        const result = await runSchedule<string>({
          nodes: workload.nodes,
          mode,
          concurrency: workload.concurrency,
          // The work starts at once, like a real node's workspace snapshot and first model call;
          // the attempt cannot end (and so nothing can depend on it) before its start is stored.
          execute: async (nodeId, { durable }) => {
            await Promise.all([work(nodeId), durable]);
            return { status: 'succeeded', result: nodeId };
          },
          onTransitions: store?.onTransitions,
        });
        if (result.status !== 'succeeded') throw new Error(`dagent ${mode} run ended ${result.status}`);
      };
      return { run, cleanup: async () => store?.close() };
    },
  };
}

function langGraphEngine(kind: 'StateGraph' | 'functional API', withCheckpointer: boolean): Engine {
  return {
    name: `LangGraph ${kind}${withCheckpointer ? ' + SqliteSaver' : ''}`,
    judged: false,
    bound: 'critical path',
    async prepare(workload, work) {
      const checkpointer = withCheckpointer ? createCheckpointer() : undefined;
      const options = checkpointer === undefined ? {} : { checkpointer: checkpointer.saver };
      const run = kind === 'StateGraph' ? buildStateGraph(workload, work, options) : buildFunctionalGraph(workload, work, options);
      return { run, cleanup: async () => checkpointer?.cleanup() };
    },
  };
}

async function measureRun(engine: Engine, workload: Workload): Promise<RunMeasure> {
  const took = new Map<string, number>();
  const startedAt = new Map<string, number>();
  const finishedAt = new Map<string, number>();
  const work: NodeWork = async (nodeId) => {
    const started = performance.now();
    startedAt.set(nodeId, started);
    await simulateWork(workload.latencyMs.get(nodeId)!);
    const finished = performance.now();
    finishedAt.set(nodeId, finished);
    took.set(nodeId, finished - started);
  };
  const { run, cleanup } = await engine.prepare(workload, work);
  try {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await run();
    const wallMs = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    const measuredBoundMs = engine.bound === 'batch bound' ? batchBoundMs(workload.nodes, took) : criticalPathMs(workload.nodes, took);
    const hopsMs = workload.nodes
      .filter((node) => node.dependsOn.length > 0)
      .map((node) => startedAt.get(node.id)! - Math.max(...node.dependsOn.map((id) => finishedAt.get(id)!)));
    return { wallMs, cpuUs: user + system, measuredBoundMs, hopsMs };
  } finally {
    await cleanup();
  }
}

function summarize(workload: Workload, engine: Engine, runs: readonly RunMeasure[]): SchedulerBenchRow {
  const size = workload.nodes.length;
  const boundMs = engine.bound === 'batch bound' ? batchBoundMs(workload.nodes, workload.latencyMs) : criticalPathMs(workload.nodes, workload.latencyMs);
  const noOp = boundMs === 0;
  const wallMs = median(runs.map((run) => run.wallMs));
  const measuredBoundMs = median(runs.map((run) => run.measuredBoundMs));
  const ratio = noOp ? undefined : median(runs.map((run) => run.wallMs / boundMs));
  const measuredRatio = noOp ? undefined : median(runs.map((run) => run.wallMs / run.measuredBoundMs));
  const overheadUsPerNode = median(runs.map((run) => ((run.wallMs - run.measuredBoundMs) * 1_000) / size));
  let goal = '';
  let met: boolean | undefined;
  if (engine.judged && noOp && size >= 2_000) {
    goal = `≤ ${OVERHEAD_GOAL_US} µs/node`;
    met = overheadUsPerNode <= OVERHEAD_GOAL_US;
  } else if (engine.judged && !noOp) {
    goal = `≤ ${RATIO_GOAL} × ${engine.bound}`;
    met = measuredRatio! <= RATIO_GOAL;
  }
  return {
    workload: workload.name,
    engine: engine.name,
    nodes: size,
    wallMs,
    boundMs,
    measuredBoundMs,
    ratio,
    measuredRatio,
    overheadUsPerNode,
    cpuUsPerNode: median(runs.map((run) => run.cpuUs / size)),
    hopMs: noOp ? undefined : percentiles(runs.flatMap((run) => run.hopsMs)),
    goal,
    met,
  };
}

function percentiles(values: readonly number[]): { p50: number; p95: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number): number => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
}

/**
 * `npm run bench -- scheduler`: seeded workloads W1 (no-op layered DAG, 200 and 2000 nodes),
 * W2 (lognormal latencies) and W3 (the refactor shape), run by our eager and batch modes with
 * every transition stored in SQLite, next to LangGraph JS. Prints one table; returns its rows.
 */
export async function runSchedulerBench(options: SchedulerBenchOptions = {}): Promise<SchedulerBenchRow[]> {
  const eager = dagentEngine('eager');
  const batch = dagentEngine('batch');
  const eagerNoStore = dagentEngine('eager', false);
  const stateGraph = langGraphEngine('StateGraph', false);
  const functional = langGraphEngine('functional API', false);
  const plan: { workload: Workload; engines: Engine[]; repetitions: number; warmup: boolean }[] = [
    { workload: w1(200), engines: [eager, batch, stateGraph, functional], repetitions: options.repetitions ?? 5, warmup: true },
    {
      workload: w1(2_000),
      engines: [eager, batch, eagerNoStore, stateGraph, functional, langGraphEngine('StateGraph', true), langGraphEngine('functional API', true)],
      repetitions: options.repetitions ?? 3,
      warmup: false,
    },
    { workload: w2(), engines: [eager, batch, eagerNoStore, stateGraph, functional], repetitions: options.repetitions ?? 3, warmup: false },
    { workload: w3(), engines: [eager, batch, eagerNoStore, stateGraph, functional], repetitions: options.repetitions ?? 3, warmup: false },
  ];
  // LangGraph puts one abort listener per task on a shared signal; silence Node's leak warning meanwhile.
  const previousMaxListeners = EventEmitter.defaultMaxListeners;
  setMaxListeners(0);
  const rows: SchedulerBenchRow[] = [];
  const loadBefore = loadavg()[0]!;
  try {
    for (const { workload, engines, repetitions, warmup } of plan) {
      for (const engine of engines) {
        if (warmup) await measureRun(engine, workload);
        const runs: RunMeasure[] = [];
        for (let index = 0; index < repetitions; index += 1) runs.push(await measureRun(engine, workload));
        rows.push(summarize(workload, engine, runs));
      }
    }
  } finally {
    setMaxListeners(previousMaxListeners);
  }
  if (options.print ?? true) printRows(rows, [loadBefore, loadavg()[0]!]);
  return rows;
}

function printRows(rows: readonly SchedulerBenchRow[], load: readonly [number, number]): void {
  const ratio = (value: number | undefined): string => (value === undefined ? '—' : value.toFixed(3));
  const table = rows.map((row) => [
    row.workload,
    row.engine,
    row.wallMs.toFixed(1),
    row.boundMs === 0 ? '—' : row.boundMs.toFixed(0),
    ratio(row.ratio),
    row.boundMs === 0 ? '—' : row.measuredBoundMs.toFixed(0),
    ratio(row.measuredRatio),
    row.overheadUsPerNode.toFixed(1),
    row.boundMs === 0 ? row.cpuUsPerNode.toFixed(1) : '—',
    row.hopMs === undefined ? '—' : `${row.hopMs.p50.toFixed(2)} / ${row.hopMs.p95.toFixed(2)}`,
    row.goal,
    row.met === undefined ? '' : verdict(row.met),
  ]);
  printTable(
    `scheduler: medians per workload and engine (node ${process.version}, ${cpus().length} cores, load average ${load[0].toFixed(1)} → ${load[1].toFixed(1)})`,
    ['workload', 'engine', 'wall ms', 'bound ms', 'ratio', 'bound* ms', 'ratio*', 'µs/node', 'cpu µs/node', 'hop ms p50/p95', 'goal', ''],
    table,
  );
  process.stdout.write(
    [
      '',
      'bound: batch-mode rows use the batch-synchronous bound (sum over batches of the slowest node), all others the critical path (longest path by latency).',
      'bound*, ratio*: the same bound computed from the latencies the nodes really took in that run (timers fire late on a busy machine); goals are judged on ratio*.',
      'µs/node: (wall − bound*) / nodes; for W1 (no-op work) simply wall / nodes. cpu µs/node (W1 only): process CPU time (user + system) per node.',
      'hop ms: from a node\'s last dependency finishing to the node starting (p50 / p95 over every hop of every run); in batch mode it includes waiting for the batch.',
      'dagent "no store" rows run the same scheduler without onTransitions: the difference to "durable SQLite" is the cost of storing.',
      'dagent rows store every transition (node/* event through EventLog.appendMany + nodes row, one transaction per group of transitions) in a SQLite file (WAL, synchronous=NORMAL,',
      '  checkpoints in a worker thread). A node starts while its node/started is being written and cannot finish before it is stored (NodeExecution.durable), as in the engine;',
      '  the schedule ends only when every transition is stored.',
      'LangGraph + SqliteSaver: its own SQLite checkpointer (@langchain/langgraph-checkpoint-sqlite) on a fresh file, WAL, synchronous=NORMAL.',
      '',
    ].join('\n'),
  );
  printSideBySide(rows);
}

/** Ours over LangGraph's on the same DAGs, measured in this one run. */
function printSideBySide(rows: readonly SchedulerBenchRow[]): void {
  const find = (workload: string, engine: string): SchedulerBenchRow | undefined => rows.find((row) => row.workload === workload && row.engine === engine);
  const lines: string[][] = [];
  const compare = (label: string, workload: string, ours: string, theirs: string, measure: (row: SchedulerBenchRow) => number | undefined): void => {
    const a = find(workload, ours);
    const b = find(workload, theirs);
    const x = a === undefined ? undefined : measure(a);
    const y = b === undefined ? undefined : measure(b);
    if (x === undefined || y === undefined || y === 0) return;
    lines.push([label, `${ours} / ${theirs}`, (x / y).toFixed(3)]);
  };
  const overhead = (row: SchedulerBenchRow): number => row.overheadUsPerNode;
  const wallOverBound = (row: SchedulerBenchRow): number | undefined => row.measuredRatio;
  compare('W1-2000 durable overhead per node', 'W1-2000', 'dagent eager, durable SQLite', 'LangGraph functional API + SqliteSaver', overhead);
  compare('W1-2000 durable overhead per node', 'W1-2000', 'dagent eager, durable SQLite', 'LangGraph StateGraph + SqliteSaver', overhead);
  for (const workload of ['W2', 'W3']) {
    compare(`${workload} wall / critical path`, workload, 'dagent eager, durable SQLite', 'LangGraph functional API', wallOverBound);
    compare(`${workload} wall / critical path`, workload, 'dagent eager, durable SQLite', 'LangGraph StateGraph', wallOverBound);
  }
  if (lines.length > 0) printTable('side by side in this run (below 1: ours is better)', ['measure', 'ours / theirs', 'ratio'], lines);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runSchedulerBench();
}
