import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database, RunLeasesTable } from '../../db/database.js';
import { isProcessAlive } from '../../process-state.js';

/** Who holds a run's lease, as its row says, and whether that holder can still be running it. */
export interface LeaseHolder {
  readonly owner: string;
  readonly pid: number;
  readonly host: string;
  readonly token: number;
  readonly expiresAt: string;
  readonly released: boolean;
  /**
   * False when the holder let go, when its lease expired without renewal, or when it ran on this
   * host and its pid is gone (killed, crashed, closed terminal). A holder on another host is
   * alive until its lease expires.
   */
  readonly alive: boolean;
}

export async function readLeaseHolder(db: Kysely<Database>, runId: string, now: Date = new Date()): Promise<LeaseHolder | undefined> {
  const row = await db.selectFrom('run_leases').selectAll().where('run_id', '=', runId).executeTakeFirst();
  return row === undefined ? undefined : leaseHolderOf(row, now);
}

export function leaseHolderOf(row: RunLeasesTable, now: Date): LeaseHolder {
  const released = row.released_at !== null;
  const alive = isHolderAlive(row, now);
  return { owner: row.owner, pid: row.pid, host: row.host, token: Number(row.token), expiresAt: row.expires_at, released, alive };
}

/** A lease-like row's holder is alive: not released, not expired, and (on this host) its pid exists. */
export function isHolderAlive(row: { readonly released_at: string | null; readonly expires_at: string; readonly host: string; readonly pid: number }, now: Date): boolean {
  return row.released_at === null && row.expires_at > now.toISOString() && (row.host !== hostname() || isProcessAlive(row.pid));
}
