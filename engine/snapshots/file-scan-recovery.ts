import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { FileSnapshots } from './file-snapshots.js';
import { deleteNodeScan, listNodeScans } from './node-scan-rows.js';

/** A node's change found after its process stopped without recording its end. */
export interface RecoveredNodeChange {
  readonly nodeId: string;
  /** The files whose content differs from the node's stored scan (or its recorded snapshots), sorted. */
  readonly filesChanged: readonly string[];
}

/**
 * Records what the nodes of a run changed when their process was killed after a deferred scan
 * (a react run's first command) and before their end: each stored scan is compared with the
 * workspace as `endNode` compares a scan boundary, the changes found are stored as snapshots (a
 * file the scan only hashed has no content before, so it cannot be restored), and the scan is
 * forgotten. Nothing is read for a run that left no scan. Call it only when no process runs the
 * run any more: a living one is still changing the files.
 */
export async function recoverStoppedScans(db: Kysely<Database>, runId: string, workspace: string): Promise<RecoveredNodeChange[]> {
  const scans = await listNodeScans(db, runId);
  if (scans.length === 0) return [];
  const files = new FileSnapshots({ db, runId, workspace, git: false });
  const recovered: RecoveredNodeChange[] = [];
  try {
    for (const scan of scans) {
      const boundary = { kind: 'scan', writes: [...scan.writes], files: scan.files } as const;
      const { filesChanged } = await files.endNode(scan.nodeId, scan.writes, boundary);
      await deleteNodeScan(db, runId, scan.nodeId);
      recovered.push({ nodeId: scan.nodeId, filesChanged });
    }
  } finally {
    await files.close();
  }
  return recovered;
}
