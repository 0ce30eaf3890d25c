import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Plan } from '../engine/index.js';
import { dagent, planOf } from './lib/dagent-runs.js';
import { criticalPathMs, w2, w3, type Workload } from './lib/scheduler-workloads.js';
import { median } from './lib/table.js';

export interface RealRun {
  readonly workload: string;
  /** From the run's `run/started` to its `run/succeeded`, by the log's timestamps. */
  readonly wallMs: number;
  /** The critical path by the nodes' nominal latencies. */
  readonly boundMs: number;
  /** The critical path by what each node's model turns took (first call to last answer, late timers included). */
  readonly measuredBoundMs: number;
  /** Dependency's `node/succeeded` → dependent's `node/started`, p50 over the hops. */
  readonly hopP50Ms: number;
}

export const REAL_RUN_WORKLOADS: readonly (() => Workload)[] = [w2, w3];

/**
 * A workload as a real `dagent run` on SQLite with the in-process scheduler: every node is an
 * agent whose scripted model takes the node's latency (its tools, snapshots and log as usual).
 */
export async function realRun(workload: Workload): Promise<RealRun> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-real-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const db = join(dir, 'dagent.db');
  try {
    const { plan, script } = planOf(workload);
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
    const flags = ['--db', db, '--model', `scripted:${join(dir, 'script.json')}`, '--approval', 'auto'];
    const created = await dagent(['plan', '--from', join(dir, 'plan.json'), '--json', ...flags], workspace);
    const runId = (JSON.parse(created) as { runId: string }).runId;
    await dagent(['approve', runId, ...flags], workspace);
    await dagent(['run', runId, '--concurrency', String(workload.concurrency), ...flags], workspace);
    return { workload: workload.name, boundMs: criticalPathMs(workload.nodes, workload.latencyMs), ...fromLog(db, runId, workload) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fromLog(path: string, runId: string, workload: Workload): Omit<RealRun, 'workload' | 'boundMs'> {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT node_id, type, created_at FROM events WHERE run_id = ? ORDER BY seq').all(runId) as { node_id: string | null; type: string; created_at: string }[];
    const at = (row: { created_at: string }): number => Date.parse(row.created_at);
    const started = rows.filter((row) => row.type === 'run/started').at(-1)!;
    const ended = rows.find((row) => row.type === 'run/succeeded');
    if (ended === undefined) throw new Error(`bench run ${runId} did not succeed`);
    const plan = JSON.parse((db.prepare('SELECT body FROM plans WHERE run_id = ? ORDER BY version DESC LIMIT 1').get(runId) as { body: string }).body) as Plan;
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
    return { wallMs: at(ended) - at(started), measuredBoundMs: criticalPathMs(workload.nodes, took), hopP50Ms: median(hops) };
  } finally {
    db.close();
  }
}
