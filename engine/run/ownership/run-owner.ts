import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { readEvents } from '../../session/event-log.js';
import type { RunStatus } from '../storage/run-status.js';
import { isProcessAlive, readLeaseHolder } from './lease-holder.js';

/** The process that holds (or last held) a run: its lease, or for runs from before leases its last `run/started` (`cancel` and `status` ask). */
export interface RunOwner {
  readonly pid: number;
  readonly host: string;
  /** False when it is gone: killed, crashed, closed terminal, or its lease expired. */
  readonly alive: boolean;
}

export async function runOwner(db: Kysely<Database>, runId: string): Promise<RunOwner | undefined> {
  const holder = await readLeaseHolder(db, runId);
  if (holder !== undefined && holder.token > 0) return { pid: holder.pid, host: holder.host, alive: holder.alive };
  const started = (await readEvents(db, runId, { types: ['run/started'] })).at(-1);
  if (started?.type !== 'run/started' || started.payload.pid === undefined) return undefined;
  const pid = started.payload.pid;
  const host = started.payload.host ?? hostname();
  // Another host's process cannot be looked at from here: take it as alive.
  if (host !== hostname()) return { pid, host, alive: true };
  return { pid, host, alive: pid !== process.pid && isProcessAlive(pid) };
}

/** A run that is planning or running moves on only while a process holds it. */
export function needsLivingProcess(status: RunStatus): boolean {
  return status === 'planning' || status === 'running';
}

/**
 * The process of a planning or running run when it is gone (killed, crashed, its terminal
 * closed, its lease expired): such a run will not move on by itself, and `status`, the dashboard,
 * `cancel` and `resume` say so. Undefined while its process lives, for other statuses, and for a
 * run that names no process.
 */
export async function deadRunOwner(db: Kysely<Database>, run: { readonly id: string; readonly status: RunStatus }): Promise<RunOwner | undefined> {
  if (!needsLivingProcess(run.status)) return undefined;
  const owner = await runOwner(db, run.id);
  return owner !== undefined && !owner.alive ? owner : undefined;
}
