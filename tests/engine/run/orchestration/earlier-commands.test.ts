import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { processStartTime, type SessionEvent } from '../../../../engine/index.js';
import { stopEarlierCommands } from '../../../../engine/run/orchestration/earlier-commands.js';

/** A detached command, as an earlier dagent process would have left it running after being killed. */
function leftRunning(): number {
  const child = spawn('sh', ['-c', 'sleep 60 & sleep 60'], { detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid!;
}

function started(pid: number, startTime: string | null): SessionEvent<'command/started'> {
  return { seq: 1, runId: 'r', nodeId: 'test', turn: 1, step: 1, type: 'command/started', payload: { toolCallId: 't', pid, host: hostname(), startTime, sandboxed: false }, createdAt: '' } as unknown as SessionEvent<'command/started'>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== 'linux')('stopEarlierCommands', () => {
  it('kills a command an earlier attempt left running, with its whole group, before the node restarts', async () => {
    const pid = leftRunning();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await stopEarlierCommands([started(pid, processStartTime(pid))])).toEqual([pid]);
    // Gone once the kernel and Node have reaped it: waited for, not guessed.
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 10_000, interval: 20 });
  });

  it('leaves alone a process that only reuses the pid (another start time), and ignores finished ones', async () => {
    const pid = leftRunning();
    try {
      expect(await stopEarlierCommands([started(pid, '1'), started(2 ** 22 - 3, null)])).toEqual([]);
      expect(alive(pid)).toBe(true);
    } finally {
      process.kill(-pid, 'SIGKILL');
    }
  });
});
