import { readFile, readdir } from 'node:fs/promises';

/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;
const POLL_MS = 50;

/**
 * Stops a process group (a command spawned `detached`, so its pid is the group id): SIGTERM to
 * every member, then SIGKILL to whatever is left after `graceMs`. Resolves when no member runs
 * any more, or once SIGKILL was sent. Killing only the direct child would leave its children running.
 */
export async function killProcessGroup(groupId: number, graceMs: number = KILL_GRACE_MS): Promise<void> {
  if (!signalGroup(groupId, 'SIGTERM')) return;
  for (let waited = 0; waited < graceMs; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!(await groupIsRunning(groupId))) return;
  }
  signalGroup(groupId, 'SIGKILL');
}

/** Sends a signal to every process of a group; false when the group no longer exists. */
function signalGroup(groupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a member of the group still runs. Where /proc exists, zombies (dead, waiting for an
 * init that reaps lazily, as in many containers) do not count; elsewhere any member does.
 */
async function groupIsRunning(groupId: number): Promise<boolean> {
  if (!signalGroup(groupId, 0)) return false;
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === groupId && fields[0] !== 'Z') return true;
  }
  return false;
}
