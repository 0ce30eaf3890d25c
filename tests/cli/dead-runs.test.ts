import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN, cliEnvironment, killRunningClis, spawnCli, type CliProcess } from '../helpers/crash-process.js';
import { isRunning } from '../helpers/process-alive.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A run whose process died, whatever ended it (kill -9, SIGTERM, npm going away), is shown as
 * such by `status` (the list, its --json, one run), its nodes' time stops with it, and `cancel`,
 * `reject` and `resume` close it or say what to do, in planning as in running.
 */

let workspace: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  const made = tempDir('dagent-dead-runs-');
  cleanup = made.cleanup;
  workspace = join(made.dir, 'repo');
  home = join(made.dir, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  // The planner answers only after a minute: the run is planning for as long as the test needs.
  writeFileSync(join(made.dir, 'slow-planner.json'), JSON.stringify({ agents: { planner: [{ latencyMs: 60_000, text: 'never seen' }] } }));
});
afterEach(() => cleanup());
afterAll(() => killRunningClis());

vi.setConfig({ testTimeout: 120_000 });

const SLOW_MODEL = ['-m', 'scripted:../slow-planner.json'];

function dagent(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 90_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface ListedRun {
  id: string;
  status: string;
  process?: { pid: number; alive: boolean };
}

function listed(): ListedRun[] {
  const result = dagent('--json', 'status');
  if (result.status !== 0) throw new Error(`status failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { runs: ListedRun[] }).runs;
}

/** Waits until `ready` holds of the run list (the process under test has got that far). */
async function until(ready: (runs: ListedRun[]) => boolean): Promise<ListedRun[]> {
  for (let tries = 0; tries < 300; tries += 1) {
    const runs = listed();
    if (ready(runs)) return runs;
    await sleep(100);
  }
  throw new Error(`the runs never got there: ${JSON.stringify(listed())}`);
}

function startCli(args: string[]): CliProcess {
  return spawnCli(args, workspace, { env: { HOME: home } });
}

async function killNine(cli: CliProcess): Promise<number> {
  const pid = cli.child.pid!;
  process.kill(pid, 'SIGKILL');
  await cli.exited;
  return pid;
}

describe('a run whose planning process died', () => {
  it('is listed as such, with its process in --json, and cancel closes it while resume and run say what to do', async () => {
    const planning = startCli(['plan', 'rename a to b', ...SLOW_MODEL]);
    const [run] = await until((runs) => runs.length === 1 && runs[0]!.status === 'planning');
    const pid = await killNine(planning);

    expect(dagent('status').stdout).toMatch(new RegExp(`^${run!.id}\\s+planning, process gone\\s`, 'm'));
    expect(dagent('status').stdout).toContain(`\`dagent cancel ${run!.id}\` closes one that was planning`);
    expect(listed()[0]).toMatchObject({ id: run!.id, status: 'planning', process: { pid, alive: false } });
    expect(dagent('status', run!.id).stdout.split('\n')[0]).toBe(`run ${run!.id} · planning, but its process (pid ${pid}) is gone · 0/0 nodes done`);

    for (const command of ['resume', 'run', 'approve']) {
      const refused = dagent(command, run!.id);
      expect(refused.status).toBe(2);
      expect(refused.stderr.trim()).toBe(`dagent: run ${run!.id} has no plan: the process that was planning it (pid ${pid}) is gone; \`dagent cancel ${run!.id}\` closes it, and \`dagent plan 'rename a to b'\` plans the task again`);
    }

    const cancelled = dagent('cancel', run!.id);
    expect(cancelled.status, cancelled.stderr).toBe(0);
    expect(cancelled.stdout.trim()).toBe(`run ${run!.id} cancelled (its planning process had already stopped); it has no plan; plan the task again with: dagent plan 'rename a to b'`);
    expect(listed()[0]).toEqual(expect.objectContaining({ status: 'cancelled' }));
    expect(listed()[0]!.process).toBeUndefined();
  });

  it('is closed by reject too, and one still planning is refused with its pid', async () => {
    const planning = startCli(['plan', 'rename a to b', ...SLOW_MODEL]);
    const [run] = await until((runs) => runs.length === 1 && runs[0]!.status === 'planning');

    const live = dagent('reject', run!.id);
    expect(live.status).toBe(2);
    expect(live.stderr).toContain(`run ${run!.id} is still being planned (pid ${planning.child.pid}): wait for its plan`);

    await killNine(planning);
    const rejected = dagent('reject', run!.id);
    expect(rejected.status, rejected.stderr).toBe(0);
    expect(rejected.stdout).toContain(`run ${run!.id} cancelled: it had no plan to reject`);
    expect(listed()[0]!.status).toBe('cancelled');
  });

  it('is cancelled, not left planning, when SIGTERM reaches dagent (timeout, CI cancellation)', async () => {
    const planning = startCli(['plan', 'rename a to b', ...SLOW_MODEL]);
    await until((runs) => runs.length === 1 && runs[0]!.status === 'planning');

    planning.child.kill('SIGTERM');
    const exit = await planning.exited;

    expect(exit.stderr).toContain('dagent: terminated (SIGTERM)');
    expect(listed()[0]!.status).toBe('cancelled');
    const log = dagent('log', listed()[0]!.id, '--type', 'run/cancelled', '--json').stdout;
    expect(log).toContain('planning stopped: terminated (SIGTERM)');
  });

  it('is cancelled when npm, which started dagent, is killed and cannot pass the signal on', async () => {
    // A stand-in for npm: starts dagent as npm does (its npm_* variables set), then dies with kill -9.
    const npm = spawn(process.execPath, ['-e', `require('node:child_process').spawn(process.execPath, ${JSON.stringify([DAGENT_BIN, 'plan', 'rename a to b', ...SLOW_MODEL])}, { stdio: 'ignore' }); setInterval(() => {}, 1000);`], {
      cwd: workspace,
      env: { ...cliEnvironment(), HOME: home, npm_command: 'run-script', npm_lifecycle_event: 'demo' },
      stdio: 'ignore',
    });
    const [run] = await until((runs) => runs.length === 1 && runs[0]!.status === 'planning');
    const dagentPid = spawnSync('pgrep', ['-P', String(npm.pid)], { encoding: 'utf8' }).stdout.trim();

    npm.kill('SIGKILL');
    const runs = await until((now) => now[0]!.status !== 'planning');

    expect(runs[0]).toMatchObject({ id: run!.id, status: 'cancelled' });
    expect(dagent('log', run!.id, '--type', 'run/cancelled', '--json').stdout).toContain(`npm, which started dagent (pid ${npm.pid}), has ended`);
    if (dagentPid !== '') for (let tries = 0; tries < 50 && isRunning(Number(dagentPid)); tries += 1) await sleep(100);
    if (dagentPid !== '') expect(isRunning(Number(dagentPid))).toBe(false);
  });
});

describe('a run whose running process died', () => {
  it('is listed as such, its node time stops, and resume or cancel close it', async () => {
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Wait', nodes: [{ id: 'wait', kind: 'command', title: 'Wait a long time', command: 'sleep 60' }] }));
    const running = startCli(['--no-sandbox', 'plan', '--from', 'plan.json', '--yes', '--no-dashboard']);
    const [run] = await until((runs) => runs.length === 1 && runs[0]!.status === 'running');
    await until(() => /wait\s+running/.test(dagent('status', run!.id).stdout));
    const pid = await killNine(running);

    expect(dagent('status').stdout).toMatch(new RegExp(`^${run!.id}\\s+running, process gone\\s`, 'm'));
    expect(listed()[0]).toMatchObject({ status: 'running', process: { pid, alive: false } });
    const first = dagent('status', run!.id).stdout;
    expect(first.split('\n')[0]).toBe(`run ${run!.id} · running, but its process (pid ${pid}) is gone · plan v1 · 0/1 nodes done`);
    const nodeTime = (text: string): string => /^wait\s+running\s+\d+\s+(\S+)/m.exec(text)![1]!;
    await sleep(1_200);
    expect(nodeTime(dagent('status', run!.id).stdout)).toBe(nodeTime(first));

    const cancelled = dagent('cancel', run!.id);
    expect(cancelled.stdout.trim()).toBe(`run ${run!.id} cancelled (its process had already stopped); resume with: dagent resume ${run!.id}`);
    expect(listed()[0]!.status).toBe('cancelled');
  });
});
