import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { readEvents } from '../session/event-log.js';

/** The process that last started a run, from its `run/started` event (`run`, `cancel` and `status` ask). */
export interface RunOwner {
  readonly pid: number;
  /** False only when it ran on this host and is gone (killed, crashed, closed terminal). */
  readonly alive: boolean;
}

export async function runOwner(db: Kysely<Database>, runId: string): Promise<RunOwner | undefined> {
  const started = (await readEvents(db, runId, { types: ['run/started'] })).at(-1);
  if (started?.type !== 'run/started' || started.payload.pid === undefined) return undefined;
  const pid = started.payload.pid;
  // Another host's process cannot be looked at from here: take it as alive.
  if (started.payload.host !== undefined && started.payload.host !== hostname()) return { pid, alive: true };
  return { pid, alive: pid !== process.pid && isAlive(pid) };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
