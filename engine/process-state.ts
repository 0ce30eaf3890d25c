import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * The fields of `/proc/<pid>/stat` after the command's name (its state first, its start time at
 * index 19); undefined where there is no such file (the process is gone, or no /proc: macOS).
 */
function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Whether a process of this host is alive: it exists (EPERM: under another user) and is not a
 * zombie. A killed process stays a zombie until its parent reaps it, and a container's first
 * process may never reap the orphans it inherits: such a pid answers `kill(pid, 0)` for ever.
 * With the `startTime` recorded of it (`processStartTime`), it is the very process: not a later
 * one given the same pid.
 */
export function isProcessAlive(pid: number, startTime?: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = procStatFields(pid);
  return fields?.[0] !== 'Z' && (startTime == null || fields?.[19] === startTime);
}

/** This process, as the log names a run's processes: its pid, host and, where /proc has one, its start time. */
export function thisProcess(): { pid: number; host: string; startTime?: string } {
  const startTime = processStartTime(process.pid);
  return { pid: process.pid, host: hostname(), ...(startTime === null ? {} : { startTime }) };
}

/** The start time of a process (clock ticks since boot, from /proc), which tells a pid from its reuse; null where /proc is missing. */
export function processStartTime(pid: number): string | null {
  return procStatFields(pid)?.[19] ?? null;
}
