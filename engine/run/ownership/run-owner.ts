import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { readEvents } from '../../session/event-log.js';
import type { RunStatus } from '../storage/run-status.js';
import { isProcessAlive } from '../../process-state.js';
import { readLeaseHolder } from './lease-holder.js';

/**
 * The process that holds (or last held) a run: its lease; before one was taken (and for runs from
 * before leases), the last `run/started`, else `run/created` (`cancel` and `status` ask).
 */
export interface RunOwner {
  readonly pid: number;
  readonly host: string;
  /** False when it is gone: killed, crashed, closed terminal, or its lease expired. */
  readonly alive: boolean;
}

export async function runOwner(db: Kysely<Database>, runId: string): Promise<RunOwner | undefined> {
  const holder = await readLeaseHolder(db, runId);
  if (holder !== undefined && holder.token > 0) return { pid: holder.pid, host: holder.host, alive: holder.alive };
  // Before any lease: the process that started the run, else the one that created it (planning, or killed before its claim).
  const named = (await readEvents(db, runId, { types: ['run/created', 'run/started'] })).filter((event) => event.payload.pid !== undefined).at(-1);
  if (named === undefined || named.payload.pid === undefined) return undefined;
  const pid = named.payload.pid;
  const host = named.payload.host ?? hostname();
  // Another host's process cannot be looked at from here: take it as alive.
  if (host !== hostname()) return { pid, host, alive: true };
  // A start time recorded tells the run's process from a later one that was given its pid.
  return { pid, host, alive: pid !== process.pid && isProcessAlive(pid, named.type === 'run/created' ? named.payload.startTime : undefined) };
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
