import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { UnknownNodeError, UnknownRunError } from '../errors.js';
import { readEvents } from '../session/event-log.js';
import type { FileSnapshot } from './file-snapshot-rows.js';

/** The snapshots of one path across a run, from the first node that changed it to the last. */
export interface PathHistory {
  readonly path: string;
  readonly snapshots: readonly [FileSnapshot, ...FileSnapshot[]];
}

/**
 * Groups a run's snapshots by path, each path's in the order its nodes touched it: by the
 * snapshot's time, then by when the node first started (the `seq` of its first `node/started`),
 * then by node id. Paths sorted.
 */
export function pathHistories(snapshots: readonly FileSnapshot[], nodeStartSeqs: ReadonlyMap<string, number>): PathHistory[] {
  const byPath = new Map<string, FileSnapshot[]>();
  for (const snapshot of snapshots) byPath.set(snapshot.path, [...(byPath.get(snapshot.path) ?? []), snapshot]);
  const startOf = (nodeId: string): number => nodeStartSeqs.get(nodeId) ?? Number.MAX_SAFE_INTEGER;
  const histories: PathHistory[] = [];
  for (const [path, group] of byPath) {
    const ordered = [...group].sort(
      (a, b) => compare(a.createdAt, b.createdAt) || startOf(a.nodeId) - startOf(b.nodeId) || compare(a.nodeId, b.nodeId),
    );
    histories.push({ path, snapshots: ordered as [FileSnapshot, ...FileSnapshot[]] });
  }
  return histories.sort((a, b) => compare(a.path, b.path));
}

/** The `seq` of each node's first `node/started` event in the run. */
export async function nodeStartSeqs(db: Kysely<Database>, runId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('events')
    .select(['node_id', (eb) => eb.fn.min('seq').as('first_seq')])
    .where('run_id', '=', runId)
    .where('type', '=', 'node/started')
    .groupBy('node_id')
    .execute();
  return new Map(rows.filter((row) => row.node_id !== null).map((row) => [row.node_id!, Number(row.first_seq)]));
}

/** The files each node changed outside its declared writes, from the run's `writes/exceeded` events. */
export async function undeclaredChanges(db: Kysely<Database>, runId: string): Promise<Map<string, Set<string>>> {
  const byNode = new Map<string, Set<string>>();
  for (const event of await readEvents(db, runId, { types: ['writes/exceeded'] })) {
    if (event.type !== 'writes/exceeded' || event.nodeId === null) continue;
    const paths = byNode.get(event.nodeId) ?? new Set<string>();
    for (const path of event.payload.paths) paths.add(path);
    byNode.set(event.nodeId, paths);
  }
  return byNode;
}

/** The run's status, or `UnknownRunError` (`runId` must be a whole id: callers resolve prefixes with `getRun`). */
export async function runStatusOf(db: Kysely<Database>, runId: string): Promise<string> {
  const row = await db.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirst();
  if (row === undefined) throw new UnknownRunError(runId);
  return row.status;
}

/** Throws `UnknownNodeError` unless the run knows the node (in its nodes, its log or its snapshots). */
export async function assertNodeInRun(db: Kysely<Database>, runId: string, nodeId: string): Promise<void> {
  const [node, event, snapshot] = await Promise.all([
    db.selectFrom('nodes').select('node_id').where('run_id', '=', runId).where('node_id', '=', nodeId).executeTakeFirst(),
    db.selectFrom('events').select('seq').where('run_id', '=', runId).where('node_id', '=', nodeId).limit(1).executeTakeFirst(),
    db.selectFrom('file_snapshots').select('path').where('run_id', '=', runId).where('node_id', '=', nodeId).limit(1).executeTakeFirst(),
  ]);
  if (node !== undefined || event !== undefined || snapshot !== undefined) return;
  // A node of the plan that has not run yet is the run's too: it has changed nothing.
  const plans = await db.selectFrom('plans').select('body').where('run_id', '=', runId).execute();
  if (!plans.some((plan) => (JSON.parse(plan.body) as { nodes?: { id?: unknown }[] }).nodes?.some((planned) => planned.id === nodeId) === true)) throw new UnknownNodeError(runId, nodeId);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
