import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/database.js';
import type { ScanHashes } from './file-scan-changes.js';

/**
 * The `node_scans` table: the hashes a node attempt's deferred scan took, one row per (run, node),
 * from its first command until its end is recorded. This file is the only one that reads or
 * writes those rows.
 */

/** A deferred scan as stored: what it covered and what it found. */
export interface NodeScan {
  readonly nodeId: string;
  readonly writes: readonly string[];
  readonly files: ScanHashes;
}

const writesSchema = z.array(z.string());
const filesSchema = z.record(z.string(), z.string());

/** Stores the node's scan, in place of one an earlier attempt left. */
export async function saveNodeScan(db: Kysely<Database>, runId: string, scan: NodeScan, createdAt: string): Promise<void> {
  const writes = JSON.stringify(scan.writes);
  const files = JSON.stringify(scan.files);
  await db
    .insertInto('node_scans')
    .values({ run_id: runId, node_id: scan.nodeId, writes, files, created_at: createdAt })
    .onConflict((conflict) => conflict.columns(['run_id', 'node_id']).doUpdateSet({ writes, files, created_at: createdAt }))
    .execute();
}

/** The run's scans whose node's end was not recorded (its process stopped before), by node. */
export async function listNodeScans(db: Kysely<Database>, runId: string): Promise<NodeScan[]> {
  const rows = await db.selectFrom('node_scans').selectAll().where('run_id', '=', runId).orderBy('node_id').execute();
  return rows.map((row) => ({ nodeId: row.node_id, writes: writesSchema.parse(JSON.parse(row.writes)), files: filesSchema.parse(JSON.parse(row.files)) }));
}

/** Forgets the node's scan: its end is recorded. */
export async function deleteNodeScan(db: Kysely<Database>, runId: string, nodeId: string): Promise<void> {
  await db.deleteFrom('node_scans').where('run_id', '=', runId).where('node_id', '=', nodeId).execute();
}
