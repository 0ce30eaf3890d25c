import { setTimeout as sleep } from 'node:timers/promises';
import type { SchedulableNode } from '../../engine/index.js';

/** A benchmark DAG: nodes, each node's simulated latency, and the concurrency that fits its widest stage. */
export interface Workload {
  readonly name: string;
  readonly nodes: readonly SchedulableNode[];
  readonly latencyMs: ReadonlyMap<string, number>;
  readonly concurrency: number;
}

/** mulberry32: a small seeded generator, so every run builds the same DAGs and latencies. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Lognormal by Box–Muller: `median · e^(sigma·z)`. */
export function lognormal(random: () => number, median: number, sigma: number): number {
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return median * Math.exp(sigma * z);
}

function pick<T>(random: () => number, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const chosen: T[] = [];
  while (chosen.length < count && pool.length > 0) chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return chosen;
}

/** Layers of `width` nodes; each node past the first layer depends on 1–3 random nodes of the layer before. */
export function layeredDag(options: { name: string; size: number; width: number; seed: number; latency: (random: () => number) => number }): Workload {
  const random = seededRandom(options.seed);
  const nodes: SchedulableNode[] = [];
  const latencyMs = new Map<string, number>();
  let previous: string[] = [];
  for (let layer = 0; nodes.length < options.size; layer += 1) {
    const current: string[] = [];
    for (let column = 0; column < options.width && nodes.length < options.size; column += 1) {
      const id = `l${layer}-${column}`;
      const dependsOn = layer === 0 ? [] : pick(random, previous, 1 + Math.floor(random() * 3));
      nodes.push({ id, dependsOn, writes: [] });
      latencyMs.set(id, options.latency(random));
      current.push(id);
    }
    previous = current;
  }
  return { name: options.name, nodes, latencyMs, concurrency: options.width };
}

/** W1: no-op work, to measure the per-node overhead. */
export function w1(size: number): Workload {
  return layeredDag({ name: `W1-${size}`, size, width: 20, seed: 1_001, latency: () => 0 });
}

/** W2: lognormal latencies, median 20 ms, heavy tail capped at 300 ms. */
export function w2(): Workload {
  return layeredDag({ name: 'W2', size: 100, width: 10, seed: 2_002, latency: (random) => Math.round(Math.min(300, Math.max(1, lognormal(random, 20, 1.1)))) });
}

/** W3: plan → 30 reads → interface edit → 8 edits (two of them after another edit) → tests. */
export function w3(): Workload {
  const random = seededRandom(3_003);
  const between = (low: number, high: number): number => Math.round(low + random() * (high - low));
  const nodes: SchedulableNode[] = [];
  const latencyMs = new Map<string, number>();
  const add = (id: string, dependsOn: readonly string[], writes: readonly string[], latency: number): void => {
    nodes.push({ id, dependsOn, writes });
    latencyMs.set(id, latency);
  };
  add('plan', [], [], 20);
  const reads = Array.from({ length: 30 }, (_, index) => `read-${index}`);
  for (const id of reads) add(id, ['plan'], [], between(5, 40));
  add('edit-interface', reads, ['src/shape.ts'], 100);
  const edits = Array.from({ length: 8 }, (_, index) => `edit-${index}`);
  const crossEdges = new Map([['edit-5', 'edit-1'], ['edit-7', 'edit-2']]);
  for (const [index, id] of edits.entries()) {
    const after = crossEdges.get(id);
    add(id, after === undefined ? ['edit-interface'] : ['edit-interface', after], [`src/shapes/shape-${index}.ts`], between(50, 400));
  }
  add('test', edits, [], 200);
  return { name: 'W3', nodes, latencyMs, concurrency: 32 };
}

/** Longest path by latency: no schedule can finish sooner. Nodes must be listed dependencies first. */
export function criticalPathMs(nodes: readonly SchedulableNode[], latencyMs: ReadonlyMap<string, number>): number {
  const finish = new Map<string, number>();
  for (const node of nodes) {
    const start = Math.max(0, ...node.dependsOn.map((id) => finish.get(id)!));
    finish.set(node.id, start + (latencyMs.get(node.id) ?? 0));
  }
  return Math.max(0, ...finish.values());
}

/** Batch-synchronous bound: each batch (topological generation) lasts as long as its slowest node. Nodes listed dependencies first. */
export function batchBoundMs(nodes: readonly SchedulableNode[], latencyMs: ReadonlyMap<string, number>): number {
  const level = new Map<string, number>();
  const slowest: number[] = [];
  for (const node of nodes) {
    const depth = Math.max(-1, ...node.dependsOn.map((id) => level.get(id)!)) + 1;
    level.set(node.id, depth);
    slowest[depth] = Math.max(slowest[depth] ?? 0, latencyMs.get(node.id) ?? 0);
  }
  return slowest.reduce((sum, ms) => sum + ms, 0);
}

/**
 * Simulated node work, the same for every engine: a plain timer. Timers fire late on a busy
 * machine, so the benchmark also measures what each node really took and derives the bounds
 * from that (see `bench/scheduler.ts`).
 */
export async function simulateWork(ms: number): Promise<void> {
  if (ms > 0) await sleep(ms);
}
