import { hostname } from 'node:os';
import { isProcessAlive } from '../../process-state.js';
import type { SessionEvent } from '../../session/event-types.js';

/** How long an earlier command's process group gets to go after SIGKILL before resume gives up. */
const KILL_WAIT_MS = 5_000;
const POLL_MS = 50;

/**
 * Before a resumed run restarts its nodes, every command an earlier process of the run started on
 * this host and that still runs (same pid, same start time) is killed with its process group, and
 * waited for: its effects must not land after the node's files were put back. Commands in the OS
 * sandbox die with dagent (`--die-with-parent`); this covers `--no-sandbox` and platforms without it.
 * Returns the pids it stopped; throws when one outlives SIGKILL.
 */
export async function stopEarlierCommands(events: readonly SessionEvent<'command/started'>[]): Promise<number[]> {
  const stopped: number[] = [];
  for (const event of events) {
    const { pid, host, startTime } = event.payload;
    if (host !== hostname() || pid === process.pid || !isProcessAlive(pid, startTime)) continue;
    signalGroup(pid, 'SIGKILL');
    for (let waited = 0; isProcessAlive(pid, startTime) && waited < KILL_WAIT_MS; waited += POLL_MS) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (isProcessAlive(pid, startTime)) {
      throw new Error(`a command of node ${event.nodeId ?? '?'} from an earlier attempt (pid ${pid}) is still running after SIGKILL; stop it, then resume`);
    }
    stopped.push(pid);
  }
  return stopped;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}
