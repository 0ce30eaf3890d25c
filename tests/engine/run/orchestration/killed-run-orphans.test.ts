import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../../../helpers/crash-process.js';
import { tempDir } from '../../../helpers/temp-store.js';

/**
 * A killed run leaves no orphans, end to end: `kill -9` of a real `dagent run` while its command
 * node runs takes the command with it (it never gets to its late effect), and `resume` runs the
 * command again, so its effect lands once, not twice.
 */

vi.setConfig({ testTimeout: 120_000 });

const hasBubblewrap = spawnSync('bwrap', ['--dev-bind', '/', '/', 'true']).status === 0;
/** How long the command sleeps between its first and its late effect. */
const COMMAND_SLEEP_S = 2;

let temp: { dir: string; cleanup: () => void };
let workspace: string;

beforeEach(() => {
  temp = tempDir('dagent-orphans-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'canary'), { recursive: true });
  mkdirSync(join(temp.dir, 'home'));
});
afterEach(() => temp.cleanup());

const environment = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: join(temp.dir, 'home'), NO_COLOR: '1' });

function dagent(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, env: environment(), encoding: 'utf8', timeout: 60_000 });
}

describe('kill -9 of dagent while a command node runs', () => {
  it.skipIf(!hasBubblewrap)('takes the command with it, and resume runs it again so its effect lands once', async () => {
    const command = `echo started > canary/started.txt; sleep ${COMMAND_SLEEP_S}; echo effect >> canary/effect.txt`;
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Append once', nodes: [{ id: 'append', kind: 'command', title: 'Append the effect', command, writes: ['canary/started.txt', 'canary/effect.txt'] }] }));
    const planned = dagent(['--json', 'plan', '--from', join(workspace, 'plan.json')]);
    expect(planned.status, planned.stderr).toBe(0);
    const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
    expect(dagent(['approve', runId]).status).toBe(0);

    const run = spawn(process.execPath, [DAGENT_BIN, 'run', runId], { cwd: workspace, env: environment(), stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => run.once('exit', (_code, signal) => resolve(signal)));
    try {
      for (let waited = 0; !existsSync(join(workspace, 'canary', 'started.txt')); waited += 20) {
        if (waited > 60_000 || run.exitCode !== null) throw new Error('the command never started');
        await sleep(20);
      }
    } finally {
      run.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
    // Longer than the command would have needed to write its late effect.
    await sleep((COMMAND_SLEEP_S + 1) * 1000);
    expect(existsSync(join(workspace, 'canary', 'effect.txt'))).toBe(false);

    const resumed = dagent(['resume', runId]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(readFileSync(join(workspace, 'canary', 'effect.txt'), 'utf8')).toBe('effect\n');
  });
});
