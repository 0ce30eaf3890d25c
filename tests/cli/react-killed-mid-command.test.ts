import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN, killRunningClis, spawnCli } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';
import { until } from '../helpers/wait-until.js';

/**
 * A react run in a workspace without git whose process is killed (kill -9) in the middle of a
 * command: `status` points at its diff (it has no plan to resume); what the command changed (a file created, one deleted, one edited) is found by the next
 * `diff` from the scan the command's start stored, said to be recovered after a crash, and
 * `cancel` then `revert` put the workspace back as it was before the run.
 */

let workspace: string;
let home: string;
let script: string;
let cleanup: () => void;

beforeEach(() => {
  const made = tempDir('dagent-react-killed-');
  cleanup = made.cleanup;
  workspace = join(made.dir, 'repo');
  home = join(made.dir, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  writeFileSync(join(workspace, 'a.txt'), 'old\n');
  writeFileSync(join(workspace, 'b.txt'), 'keep\n');
  script = join(made.dir, 'react.json');
  const command = 'echo changed > a.txt && rm b.txt && echo new > c.txt && sleep 20';
  writeFileSync(script, JSON.stringify({ agents: { react: [{ toolCalls: [{ name: 'run_command', args: { command } }] }, { text: 'Done.' }] } }));
});
afterEach(() => cleanup());
afterAll(() => killRunningClis());

vi.setConfig({ testTimeout: 90_000 });

function dagent(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a react run killed mid-command, in a workspace without git', () => {
  it('has what the command changed recovered by diff, and cancel and revert put it back', async () => {
    const react = spawnCli(['react', 'tidy the notes', '-m', `scripted:${script}`, '--approval', 'auto'], workspace, { env: { HOME: home } });
    await until('the command to have changed the files', () => existsSync(join(workspace, 'c.txt')), 30_000);
    react.child.kill('SIGKILL');
    await react.exited;
    const runId = (JSON.parse(dagent('--json', 'status').stdout) as { runs: { id: string }[] }).runs[0]!.id;
    expect(dagent('status', runId).stdout.trim().split('\n').at(-1)).toBe(
      `a react run has no plan to resume: \`dagent diff ${runId}\` shows what it changed, a command the crash cut short included; \`dagent cancel ${runId}\` closes it`,
    );

    const diff = dagent('diff', runId, '--stat');

    expect(diff.status).toBe(0);
    expect(diff.stderr).toContain(
      `recovered after a crash: run ${runId}'s process was killed mid-command; what it had changed is recorded now (3 files: a.txt, b.txt, c.txt); close the run with dagent cancel ${runId}, then undo them with dagent revert ${runId}`,
    );
    expect(diff.stdout).toMatch(/c\.txt +\| \+1 -0 +react \(new file\)/);
    expect(diff.stdout).toMatch(/b\.txt +\| \+0 -1 +react \(deleted\)/);
    expect(dagent('--json', 'log', runId, '--type', 'files/recovered').stdout).toContain('"files":["a.txt","b.txt","c.txt"]');

    expect(dagent('revert', runId).stderr.trim()).toBe(
      `dagent: run ${runId}'s process is gone (killed or crashed), but the run is still open: \`dagent cancel ${runId}\` closes it, then \`dagent revert ${runId}\` undoes its change (--force reverts it now)`,
    );
    expect(dagent('cancel', runId).status).toBe(0);
    const revert = dagent('revert', runId);

    expect([revert.status, revert.stderr]).toEqual([0, '']);
    expect([readFileSync(join(workspace, 'a.txt'), 'utf8'), readFileSync(join(workspace, 'b.txt'), 'utf8'), existsSync(join(workspace, 'c.txt'))]).toEqual(['old\n', 'keep\n', false]);
  });

  it('says nothing of a crash for a run that ended by itself', () => {
    writeFileSync(script, JSON.stringify({ agents: { react: [{ toolCalls: [{ name: 'run_command', args: { command: 'echo new > c.txt' } }] }, { text: 'Done.' }] } }));
    const react = dagent('react', 'tidy the notes', '-m', `scripted:${script}`, '--approval', 'auto');
    const runId = /run (r-[0-9a-z]+)/.exec(react.stderr)![1]!;

    const diff = dagent('diff', runId, '--stat');

    expect([react.status, diff.status, diff.stderr]).toEqual([0, 0, '']);
    expect(diff.stdout).toMatch(/c\.txt +\| \+1 -0 +react \(new file\)/);
  });
});
