import { hostname } from 'node:os';
import { runLog, runOwner, type Store } from '../../engine/index.js';

/**
 * Asks a running run to stop: `run/cancel-requested` in its log, then SIGINT to the process
 * running it (which aborts its nodes and leaves the run resumable). Only a process of this host
 * can be signalled; one elsewhere sees the event. Returns that process, or undefined when it is gone.
 */
export async function requestCancel(store: Pick<Store, 'db'>, runId: string, by: string): Promise<{ pid: number } | undefined> {
  await runLog(store.db, runId).append({ type: 'run/cancel-requested', payload: { by } });
  const owner = await runOwner(store.db, runId);
  if (owner === undefined || !owner.alive) return undefined;
  if (owner.host === hostname()) process.kill(owner.pid, 'SIGINT');
  return { pid: owner.pid };
}
