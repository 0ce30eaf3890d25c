import type { Generated } from 'kysely';

/**
 * Row types of the tables. JSON columns are text; timestamps are ISO-8601 text; both
 * work the same in SQLite and PostgreSQL.
 */
export interface RunsTable {
  id: string;
  task: string;
  workspace: string;
  mode: string;
  status: string;
  plan_version: number | null;
  config: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface PlansTable {
  run_id: string;
  version: number;
  body: string;
  status: string;
  reason: string | null;
  hash: string;
  created_at: string;
  approved_at: string | null;
}

export interface NodesTable {
  run_id: string;
  node_id: string;
  plan_version: number;
  status: string;
  attempts: number;
  started_at: string | null;
  finished_at: string | null;
  result: string | null;
  error: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_hit_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
}

export interface EventsTable {
  run_id: string;
  seq: number;
  node_id: string | null;
  turn: number;
  step: number;
  type: string;
  payload: string;
  surface_op: string | null;
  source_event_seqs: string | null;
  created_at: string;
  /** The version of the type's payload schema the row was written with; null (rows from before versions): 1. */
  version: number | null;
}

export interface FileSnapshotsTable {
  run_id: string;
  node_id: string;
  path: string;
  /** Content before the node's first write; null when the file did not exist. */
  content_before: string | null;
  hash_before: string | null;
  hash_after: string | null;
  /**
   * Content after the node; null while the node has not ended, or when it left no file (then
   * `hash_after` is set to the marker `'absent'`).
   */
  content_after: string | null;
  /** How `content_before` and `content_after` are stored: text, or base64 for binary content. */
  encoding: 'utf8' | 'base64';
  created_at: string;
}

/** Which process holds a run (see `claimRun`); the token grows with every claim. */
export interface RunLeasesTable {
  run_id: string;
  token: number;
  owner: string;
  pid: number;
  host: string;
  acquired_at: string;
  expires_at: string;
  /** Set when the holder let go; the row stays so the next claim's token is higher. */
  released_at: string | null;
}

/** Which worker runs a dispatched node attempt (see engine/dispatch); the token grows with every claim. */
export interface NodeClaimsTable {
  run_id: string;
  node_id: string;
  token: number;
  worker: string;
  pid: number;
  host: string;
  expires_at: string;
  released_at: string | null;
}

/** The hashes a node attempt's deferred scan took (`migrations/0015-node-scans.ts`), until its end is recorded. */
export interface NodeScansTable {
  run_id: string;
  node_id: string;
  /** JSON array of the write globs the scan covered. */
  writes: string;
  /** JSON object: workspace-relative path to content hash. */
  files: string;
  created_at: string;
}

export interface MemoriesTable {
  id: Generated<number>;
  scope: string;
  kind: string;
  content: string;
  keywords: string;
  content_hash: string;
  created_at: string;
  updated_at: string;
  /** JSON of the memory's `MemorySource`; null for memories stored before sources were kept. */
  source?: string | null;
}

export interface Database {
  runs: RunsTable;
  plans: PlansTable;
  nodes: NodesTable;
  events: EventsTable;
  file_snapshots: FileSnapshotsTable;
  memories: MemoriesTable;
  run_leases: RunLeasesTable;
  node_claims: NodeClaimsTable;
  node_scans: NodeScansTable;
}
