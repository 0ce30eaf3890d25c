import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNonInteractiveApprover, createScriptedApprover, createToolRuntime, type LocalToolRuntime } from '../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../helpers/tools-test-bed.js';

let bed: ToolTestBed;
let runtime: LocalToolRuntime;
beforeEach(async () => {
  bed = await openToolTestBed();
  runtime = createToolRuntime();
});
afterEach(async () => bed.cleanup());

/** A sleep duration no other process on the machine uses, so the host can find the command's processes by it. */
function uniqueSleep(): string {
  return `${30 + Math.floor(Math.random() * 1000)}.${Math.floor(Math.random() * 1000)}`;
}

/** Processes whose command line is `sleep SECONDS`, read from the host's /proc (zombies do not count). */
function sleepersOf(seconds: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (cmdline[0]?.endsWith('sleep') && cmdline[1] === seconds && stat[stat.lastIndexOf(')') + 2] !== 'Z') found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Polls with a generous upper bound; never asserts on timing itself. */
async function waitUntil(condition: () => boolean, limitMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += 50) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

function waitUntilStopped(seconds: string): Promise<boolean> {
  return waitUntil(() => sleepersOf(seconds).length === 0);
}

describe('run_command', () => {
  it('returns the exit code, stdout and stderr', async () => {
    const result = await bed.call(runtime, 'run_command', { command: 'echo hello; echo oops >&2; exit 3' });
    expect(result.content).toBe('exit code 3\n--- stdout ---\nhello\n--- stderr ---\noops');
    expect(result).toMatchObject({ isError: true, meta: { outcome: 'error', exitCode: 3, timedOut: false, args: { command: 'echo hello; echo oops >&2; exit 3' } } });
  });

  it("keeps all of a fast command's output while its start is being recorded in the log", async () => {
    // The log answers slowly: the command has finished and written everything before its start is stored.
    const slowLog = Object.create(bed.session, {
      append: { value: async (...args: Parameters<typeof bed.session.append>) => {
        const stored = await bed.session.append(...args);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return stored;
      } },
    }) as typeof bed.session;
    const result = await bed.call(runtime, 'run_command', { command: 'echo hello; echo oops >&2' }, { session: slowLog });
    expect(result.content).toBe('exit code 0\n--- stdout ---\nhello\n--- stderr ---\noops');
  });

  it('runs read-only commands in the workspace without asking under suggest, stdin closed', async () => {
    const approver = createScriptedApprover([]);
    const result = await bed.call(runtime, 'run_command', { command: 'pwd && cat' }, { approver });
    expect(result).toMatchObject({ content: `exit code 0\n--- stdout ---\n${bed.workspace}`, isError: false, meta: { outcome: 'ok', exitCode: 0 } });
    expect(approver.requests).toEqual([]);
  });

  it('asks before other commands; a denial leaves the workspace untouched', async () => {
    const result = await bed.call(runtime, 'run_command', { command: 'touch created.txt' }, { approver: createNonInteractiveApprover() });
    expect(result.meta.outcome).toBe('denied');
    expect(existsSync(`${bed.workspace}/created.txt`)).toBe(false);
    const requested = (await bed.events()).find((event) => event.type === 'approval/requested')!;
    expect(requested.payload).toMatchObject({ tool: 'run_command', policy: 'suggest', summary: 'run_command touch created.txt', reason: 'touch created.txt: it writes a file' });
  });

  it('refuses dangerous commands under every policy, with the reason, without running them', async () => {
    for (const approval of ['auto', 'suggest', 'never'] as const) {
      const strict = createToolRuntime({ approval });
      const result = await bed.call(strict, 'run_command', { command: 'touch marker.txt; sudo rm -rf /' });
      expect(result.meta.outcome).toBe('refused');
      expect(result.content).toBe('refused: sudo runs commands with elevated privileges. This is refused under every approval policy; do not retry it, find another way.');
    }
    expect(existsSync(`${bed.workspace}/marker.txt`)).toBe(false);
    expect((await bed.events()).filter((event) => event.type === 'tool/call')).toEqual([]);
  });

  it('on timeout kills the whole process group, grandchildren included', async () => {
    const seconds = uniqueSleep();
    const result = await bed.call(runtime, 'run_command', { command: `sh -c 'sleep ${seconds} & echo started; wait'`, timeout_ms: 300 });
    expect(result).toMatchObject({ isError: true, meta: { outcome: 'timeout', timedOut: true } });
    expect(result.content).toBe('timed out after 300 ms: the command and every process it started were stopped\n--- stdout ---\nstarted');
    expect(await waitUntilStopped(seconds)).toBe(true);
  });

  it('stops what a finished command left running in the background, even after setsid -f', async () => {
    const seconds = uniqueSleep();
    const result = await bed.call(runtime, 'run_command', { command: `sleep ${seconds} & setsid -f sleep ${seconds}; echo started` });
    expect(result.meta).toMatchObject({ outcome: 'ok', exitCode: 0 });
    expect(result.meta.durationMs).toBeLessThan(15_000);
    expect(await waitUntilStopped(seconds)).toBe(true);
  });

  it('kills the process group when the run is cancelled', async () => {
    const seconds = uniqueSleep();
    const controller = new AbortController();
    const pending = bed.call(runtime, 'run_command', { command: `sh -c 'sleep ${seconds} & echo started; wait'` }, { signal: controller.signal });
    // Cancelled once the command's child is running, not after a guessed delay.
    expect(await waitUntil(() => sleepersOf(seconds).length > 0)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.meta.outcome).toBe('aborted');
    expect(result.content).toMatch(/^aborted: the run was cancelled; the command and every process it started were stopped\n/);
    expect(await waitUntilStopped(seconds)).toBe(true);
  });

  it('caps large output, keeping its start and end', async () => {
    const result = await bed.call(runtime, 'run_command', { command: "head -c 200000 /dev/zero | tr '\\0' a; echo; echo END" });
    expect(result.meta).toMatchObject({ outcome: 'ok', truncated: true, stdoutBytes: 200_005 });
    expect(result.content).toMatch(/^exit code 0\n--- stdout ---\na+\n\[… \d+ bytes omitted …\]\na+\nEND$/);
    expect(result.content.length).toBeLessThan(30_000);
  });

  it('reports a command that does not exist through its exit code', async () => {
    const result = await bed.call(runtime, 'run_command', { command: 'definitely-not-a-command-xyz' });
    expect(result.meta).toMatchObject({ outcome: 'error', exitCode: 127 });
    expect(result.content).toMatch(/command not found/);
  });
});
