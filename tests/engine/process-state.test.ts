import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { isHolderAlive } from '../../engine/run/ownership/lease-holder.js';
import { isProcessAlive, processStartTime } from '../../engine/process-state.js';

/** A process's state letter from /proc (`Z`: a zombie), or undefined once it is gone. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

let parent: ChildProcess | undefined;
afterEach(() => {
  parent?.kill('SIGKILL');
  parent = undefined;
});

/**
 * A zombie: a child that has exited and whose parent never waits for it. The shell starts a short
 * `sleep` and then becomes a long one, which does not reap the child it inherited.
 */
async function zombie(): Promise<{ zombiePid: number; parentPid: number }> {
  parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise<string>((resolve) => parent!.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString())));
  const zombiePid = Number(line.trim());
  for (let tries = 0; tries < 100 && stateOf(zombiePid) !== 'Z'; tries += 1) await sleep(20);
  return { zombiePid, parentPid: parent.pid! };
}

describe('whether a process of this host is alive', () => {
  it.skipIf(process.platform !== 'linux')('is not, once it is a zombie its parent never reaped (a killed process under a container init that reaps nothing)', async () => {
    const { zombiePid, parentPid } = await zombie();

    expect(stateOf(zombiePid)).toBe('Z');
    expect(isProcessAlive(zombiePid)).toBe(false);
    expect(isProcessAlive(parentPid)).toBe(true);
    // A run's lease held by it is free to take over (resume, status's "process gone").
    const lease = (pid: number) => ({ released_at: null, expires_at: new Date(Date.now() + 30_000).toISOString(), host: hostname(), pid });
    expect(isHolderAlive(lease(zombiePid), new Date())).toBe(false);
    expect(isHolderAlive(lease(parentPid), new Date())).toBe(true);
  });

  it('is for this process, and is not for a pid no process has', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(4_194_304 + 17)).toBe(false);
  });

  it.skipIf(process.platform !== 'linux')('tells a process by its start time, the same for as long as it runs', () => {
    expect(processStartTime(process.pid)).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(processStartTime(process.pid));
    expect(processStartTime(4_194_304 + 17)).toBeNull();
  });
});
