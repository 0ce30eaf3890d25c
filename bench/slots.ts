import { EventEmitter, setMaxListeners } from 'node:events';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runSchedule, type SchedulableNode } from '../engine/index.js';
import { openDurableRun } from './lib/scheduler-durable.js';
import { buildStateGraph, type NodeWork } from './lib/scheduler-langgraph.js';
import { criticalPathMs, lognormal, seededRandom, simulateWork, w2, w3, type Workload } from './lib/scheduler-workloads.js';
import { median, printTable } from './lib/table.js';

/** `dagent run`'s default `--concurrency`: the slots most runs have. */
const SLOTS = 4;
const ROUNDS = 3;

/** How our scheduler is told what each node costs: exactly, roughly (as a planner's estimates are), or not at all. */
type Costs = 'exact' | 'rough' | 'none';

interface Row {
  readonly workload: string;
  readonly engine: string;
  readonly wallMs: number[];
  readonly boundMs: number;
  /** The most nodes that ran at once, over the rounds. */
  peak: number;
}

/**
 * `npm run bench -- slots`: W2 and W3 with fewer slots than ready nodes (4, the default
 * `--concurrency`), durable in SQLite. Our scheduler starts the ready node with the costliest
 * work ahead of it first, told the nodes' costs exactly, roughly (each off by a lognormal factor,
 * σ 0.7: half of them more than 1.6× off), or not at all (list order, as before it ranked them);
 * LangGraph's StateGraph with `maxConcurrency` 4 beside it (its functional API runs every task
 * at once whatever `maxConcurrency` says: 10 and 30 here). Wall over the lower bound: the
 * critical path, or all the work spread over the slots, whichever is longer; the most nodes that
 * ran at once is shown as a check. Rounds interleave.
 */
export async function runSlotsBench(): Promise<void> {
  const workloads = [w2(), w3()];
  const engines: { name: string; run: (workload: Workload, work: NodeWork) => Promise<number> }[] = [
    { name: 'dagent, exact costs', run: (workload, work) => dagentRun(workload, work, 'exact') },
    { name: 'dagent, rough costs (σ 0.7)', run: (workload, work) => dagentRun(workload, work, 'rough') },
    { name: 'dagent, no costs (list order)', run: (workload, work) => dagentRun(workload, work, 'none') },
    { name: 'LangGraph StateGraph, maxConcurrency 4', run: (workload, work) => langGraphRun(workload, work) },
  ];
  const previousMaxListeners = EventEmitter.defaultMaxListeners;
  setMaxListeners(0);
  const rows = new Map<string, Row>();
  const loads = [loadavg()[0]!];
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const workload of workloads) {
        for (const engine of round % 2 === 0 ? engines : [...engines].reverse()) {
          const key = `${workload.name} ${engine.name}`;
          const row = rows.get(key) ?? { workload: workload.name, engine: engine.name, wallMs: [], boundMs: lowerBoundMs(workload), peak: 0 };
          let running = 0;
          const work: NodeWork = async (nodeId) => {
            row.peak = Math.max(row.peak, (running += 1));
            await simulateWork(workload.latencyMs.get(nodeId)!);
            running -= 1;
          };
          row.wallMs.push(await engine.run(workload, work));
          rows.set(key, row);
        }
      }
      loads.push(loadavg()[0]!);
    }
  } finally {
    setMaxListeners(previousMaxListeners);
  }
  printTable(
    `Fewer slots than ready nodes: ${SLOTS} slots, durable SQLite (median of ${ROUNDS} interleaved rounds; load average ${loads.map((load) => load.toFixed(1)).join(' → ')})`,
    ['workload', 'engine', 'wall ms', 'lower bound ms', 'wall / bound', 'most at once'],
    [...rows.values()].map((row) => [row.workload, row.engine, median(row.wallMs).toFixed(0), row.boundMs.toFixed(0), (median(row.wallMs) / row.boundMs).toFixed(3), String(row.peak)]),
  );
  process.stdout.write('lower bound: the longer of the critical path and all the nodes\' work over the slots.\n');
}

function lowerBoundMs(workload: Workload): number {
  const total = [...workload.latencyMs.values()].reduce((sum, ms) => sum + ms, 0);
  return Math.max(criticalPathMs(workload.nodes, workload.latencyMs), total / SLOTS);
}

async function dagentRun(workload: Workload, work: NodeWork, costs: Costs): Promise<number> {
  const store = await openDurableRun(workload.nodes);
  const noise = seededRandom(7_007);
  const rough = new Map([...workload.latencyMs].map(([id, ms]) => [id, ms * lognormal(noise, 1, 0.7)]));
  const costOf = (node: SchedulableNode): number => (costs === 'exact' ? workload.latencyMs.get(node.id)! : costs === 'rough' ? rough.get(node.id)! : 0);
  try {
    const started = performance.now();
    const result = await runSchedule<string>({
      nodes: workload.nodes,
      concurrency: SLOTS,
      costOf,
      execute: async (nodeId, { durable }) => {
        await Promise.all([work(nodeId), durable]);
        return { status: 'succeeded', result: nodeId };
      },
      onTransitions: store.onTransitions,
    });
    if (result.status !== 'succeeded') throw new Error(`dagent run of ${workload.name} ended ${result.status}`);
    return performance.now() - started;
  } finally {
    await store.close();
  }
}

async function langGraphRun(workload: Workload, work: NodeWork): Promise<number> {
  const run = buildStateGraph(workload, work, { maxConcurrency: SLOTS });
  const started = performance.now();
  await run();
  return performance.now() - started;
}
