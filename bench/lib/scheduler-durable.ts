import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, type Kysely } from 'kysely';
import { EventLog, createRun, nodeEventDraft, openDatabase, type Database, type EventDraft, type NodeTransition, type SchedulableNode, type Store } from '../../engine/index.js';

/** The `nodes` columns a transition sets; the token and cost columns keep their defaults. */
interface NodeRow {
  node_id: string;
  plan_version: number;
  status: string;
  attempts: number;
  started_at: string | null;
  finished_at: string | null;
  result: string | null;
  error: string | null;
}

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
  await writeNodeRows(store.db, run.id, nodes.map((node) => pendingRow(node.id)));
  const log = new EventLog(store.db, run.id);
  const onTransitions = async (changes: readonly NodeTransition[]): Promise<void> => {
    const drafts: EventDraft[] = [];
    for (const change of changes) {
      const draft = nodeEventDraft(change);
      if (draft !== undefined) drafts.push(draft);
    }
    const at = new Date().toISOString();
    await log.appendMany(drafts, { effects: (transaction) => writeNodeRows(transaction, run.id, projectRows(changes, at)) });
  };
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

function pendingRow(nodeId: string): NodeRow {
  return { node_id: nodeId, plan_version: 1, status: 'pending', attempts: 0, started_at: null, finished_at: null, result: null, error: null };
}

/** The `nodes` rows after a group of transitions: one row per node, its last change winning. */
function projectRows(changes: readonly NodeTransition[], at: string): NodeRow[] {
  const rows = new Map<string, NodeRow>();
  for (const change of changes) {
    const row: NodeRow = rows.get(change.nodeId) ?? pendingRow(change.nodeId);
    row.status = change.to;
    row.attempts = change.attempts;
    if (change.kind === 'started') row.started_at = at;
    const settled = change.to === 'succeeded' || change.to === 'failed' || change.to === 'skipped' || change.to === 'cancelled';
    row.finished_at = settled ? at : null;
    row.result = change.kind === 'succeeded' ? String(change.result) : null;
    row.error = change.kind === 'failed' || change.kind === 'retried' ? change.error : null;
    rows.set(change.nodeId, row);
  }
  return [...rows.values()];
}

/**
 * Upserts rows with one statement whose only parameters are the run id and the rows as JSON:
 * its SQL never changes, so it is prepared once and needs no query building per call.
 */
const UPSERT_NODES_SQL = `
insert into nodes (run_id, node_id, plan_version, status, attempts, started_at, finished_at, result, error)
select ?, json_extract(row.value, '$.node_id'), json_extract(row.value, '$.plan_version'), json_extract(row.value, '$.status'),
       json_extract(row.value, '$.attempts'), json_extract(row.value, '$.started_at'), json_extract(row.value, '$.finished_at'),
       json_extract(row.value, '$.result'), json_extract(row.value, '$.error')
from json_each(?) as row
where true
on conflict (run_id, node_id) do update set
  status = excluded.status, attempts = excluded.attempts, started_at = coalesce(excluded.started_at, nodes.started_at),
  finished_at = excluded.finished_at, result = excluded.result, error = excluded.error`;

async function writeNodeRows(db: Kysely<Database>, runId: string, rows: readonly NodeRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.executeQuery(CompiledQuery.raw(UPSERT_NODES_SQL, [runId, JSON.stringify(rows)]));
}
