import type { Kysely, Selectable } from 'kysely';
import type { Database, FileSnapshotsTable } from '../db/database.js';
import { contentHash, decodeContent, encodeContent, encodingFor, type FileContentEncoding } from './file-content.js';
import { ABSENT_FILE, LINK_HASH_PREFIX, stateBytes, type FileState } from './file-state.js';

/**
 * The `file_snapshots` table, one row per (run, node, path) a node changed: the content before
 * the node's first change (insert-if-absent, so it stays "before the node" across retries) and
 * the content after the node. A symbolic link is stored as its target, its hash starting with
 * `symlink:`. This file is the only one that reads or writes those rows.
 */

/** `hash_after` of a node that left no file at the path. */
export const ABSENT_FILE_HASH = 'absent';

export interface FileSnapshotKey {
  readonly runId: string;
  readonly nodeId: string;
  readonly path: string;
}

export interface FileSnapshot extends FileSnapshotKey {
  readonly before: FileState;
  /** Undefined while the node has not ended (or was restarted since). */
  readonly after: FileState | undefined;
  readonly createdAt: string;
}

/** Stores `before` unless the node already has a snapshot of the path. True when it stored one. */
export async function insertSnapshotIfAbsent(db: Kysely<Database>, key: FileSnapshotKey, before: FileState, createdAt: string): Promise<boolean> {
  const bytes = stateBytes(before);
  const encoding = encodingFor([bytes]);
  const result = await db
    .insertInto('file_snapshots')
    .values({
      run_id: key.runId,
      node_id: key.nodeId,
      path: key.path,
      content_before: bytes === null ? null : encodeContent(bytes, encoding),
      hash_before: before.kind === 'absent' ? null : before.hash,
      hash_after: null,
      content_after: null,
      encoding,
      created_at: createdAt,
    })
    .onConflict((conflict) => conflict.columns(['run_id', 'node_id', 'path']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Records the content after the node; both contents are re-encoded so one encoding fits them. */
export async function recordSnapshotAfter(db: Kysely<Database>, snapshot: FileSnapshot, after: FileState): Promise<void> {
  const beforeBytes = stateBytes(snapshot.before);
  const afterBytes = stateBytes(after);
  const encoding = encodingFor([beforeBytes, afterBytes]);
  await db
    .updateTable('file_snapshots')
    .set({
      content_before: beforeBytes === null ? null : encodeContent(beforeBytes, encoding),
      content_after: afterBytes === null ? null : encodeContent(afterBytes, encoding),
      hash_after: after.kind === 'absent' ? ABSENT_FILE_HASH : after.hash,
      encoding,
    })
    .where('run_id', '=', snapshot.runId)
    .where('node_id', '=', snapshot.nodeId)
    .where('path', '=', snapshot.path)
    .execute();
}

/** Forgets the node's "after" contents: it restarts from its beginning. */
export async function clearSnapshotsAfter(db: Kysely<Database>, runId: string, nodeId: string): Promise<void> {
  await db.updateTable('file_snapshots').set({ content_after: null, hash_after: null }).where('run_id', '=', runId).where('node_id', '=', nodeId).execute();
}

/** Drops a snapshot of a file the node did not change in the end. */
export async function deleteSnapshot(db: Kysely<Database>, key: FileSnapshotKey): Promise<void> {
  await db.deleteFrom('file_snapshots').where('run_id', '=', key.runId).where('node_id', '=', key.nodeId).where('path', '=', key.path).execute();
}

/** The run's snapshots (or one node's), by path then node. */
export async function listSnapshots(db: Kysely<Database>, runId: string, nodeId?: string): Promise<FileSnapshot[]> {
  let query = db.selectFrom('file_snapshots').selectAll().where('run_id', '=', runId);
  if (nodeId !== undefined) query = query.where('node_id', '=', nodeId);
  const rows = await query.orderBy('path').orderBy('node_id').execute();
  return rows.map(snapshotFromRow);
}

export function snapshotFromRow(row: Selectable<FileSnapshotsTable>): FileSnapshot {
  const encoding: FileContentEncoding = row.encoding === 'base64' ? 'base64' : 'utf8';
  return {
    runId: row.run_id,
    nodeId: row.node_id,
    path: row.path,
    before: stateFromColumns(row.content_before, row.hash_before, encoding),
    after: row.hash_after === null ? undefined : row.hash_after === ABSENT_FILE_HASH ? ABSENT_FILE : stateFromColumns(row.content_after, row.hash_after, encoding),
    createdAt: row.created_at,
  };
}

function stateFromColumns(content: string | null, hash: string | null, encoding: FileContentEncoding): FileState {
  if (hash === null) return ABSENT_FILE;
  if (content === null) return { kind: 'unrecorded', hash };
  const bytes = decodeContent(content, encoding);
  if (hash.startsWith(LINK_HASH_PREFIX)) return { kind: 'link', target: bytes.toString('utf8'), hash };
  // The store redacts secrets from every value it writes: content that no longer matches the
  // hash taken from the file itself held one.
  return contentHash(bytes) === hash ? { kind: 'file', bytes, hash } : { kind: 'file', bytes, hash, redacted: true };
}
