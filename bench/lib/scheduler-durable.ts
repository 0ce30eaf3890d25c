import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog, appendNodeTransitions, createRun, openDatabase, type NodeTransition, type SchedulableNode, type Store } from '../../engine/index.js';

/** A run in a fresh SQLite file whose node transitions are stored as the engine stores them. */
export interface DurableRun {
  readonly runId: string;
  readonly path: string;
  /** Appends each transition's node event and updates the `nodes` projection, in one transaction. */
  readonly onTransitions: (changes: readonly NodeTransition[]) => Promise<void>;
  readonly store: Store;
  close(): Promise<void>;
}

export async function openDurableRun(nodes: readonly SchedulableNode[]): Promise<DurableRun> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-scheduler-'));
  const path = join(dir, 'dagent.db');
  const store = await openDatabase(path);
  const run = await createRun(store.db, { task: 'scheduler benchmark', workspace: dir, mode: 'plan', status: 'running' });
  await insertPendingRows(store, run.id, nodes);
  const log = new EventLog(store.db, run.id);
  const context = { planVersion: 1, describe: (result: unknown) => ({ result: String(result) }), started: new Map<string, string>() };
  // The same events and `nodes` projection, by the same function, as the run controller writes.
  const onTransitions = (changes: readonly NodeTransition[]): Promise<void> => appendNodeTransitions(log, changes, context);
  return {
    runId: run.id,
    path,
    onTransitions,
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function insertPendingRows(store: Store, runId: string, nodes: readonly SchedulableNode[]): Promise<void> {
  const rows = nodes.map((node) => ({
    run_id: runId, node_id: node.id, plan_version: 1, status: 'pending', attempts: 0, started_at: null, finished_at: null, result: null, error: null,
    input_tokens: 0, output_tokens: 0, cache_hit_tokens: 0, reasoning_tokens: 0, cost_usd: 0,
  }));
  for (let start = 0; start < rows.length; start += 500) await store.db.insertInto('nodes').values(rows.slice(start, start + 500)).execute();
}
