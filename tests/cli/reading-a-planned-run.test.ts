import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, createRun, openDatabase } from '../../engine/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A run planned and not yet approved, read back: its status in words, `log --node` (a node's
 * events, the run's own with `-`, one the run never had), `show --plan-version` of one it never had.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let runId: string;

const cli = (args: string[]) => runCli(args, { cwd: workspace, env: { HOME: join(temp.dir, 'home'), PATH: process.env.PATH } });

beforeEach(async () => {
  temp = tempDir('dagent-log-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(temp.dir, 'home'));
  writeFileSync(
    join(workspace, 'plan.json'),
    JSON.stringify({ goal: 'Say hello', nodes: [{ id: 'hello', kind: 'command', title: 'Say hello', command: 'echo hello > hello.txt', writes: ['hello.txt'] }] }),
  );
  const planned = await cli(['plan', '--from', 'plan.json', '--json']);
  expect(planned.code, planned.stderr).toBe(0);
  runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
});

afterEach(() => temp.cleanup());

describe('dagent log --node', () => {
  it('refuses a node no plan of the run has, naming where the nodes are listed', async () => {
    const result = await cli(['log', runId, '--node', 'helo']);

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`dagent: run ${runId} has no node "helo": \`dagent status ${runId}\` lists its nodes`);
  });

  it('prints nothing, and is no error, for a planned node that has not run yet', async () => {
    const result = await cli(['log', runId, '--node', 'hello']);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('');
  });

  it('takes "-" as its own word for the run-level events, as the help says', async () => {
    const result = await cli(['log', runId, '--node', '-']);

    expect(result.code, result.stderr).toBe(0);
    const types = result.stdout.trim().split('\n').map((line) => line.trim().split(/\s+/)[3]);
    expect(types).toEqual(['run/created', 'plan/created']);
  });
});

describe('a plan version the run never had', () => {
  it('is refused with the versions it has', async () => {
    const result = await cli(['show', runId, '--plan-version', '9']);

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`dagent: run ${runId} has no plan v9 (its plans: v1)`);
  });
});

describe('the status of a run awaiting approval', () => {
  it('reads in words in the list and the run, as stored in JSON', async () => {
    const list = await cli(['status']);
    expect(list.stdout).toMatch(new RegExp(`^${runId} +awaiting approval +v1 `, 'm'));

    const run = await cli(['status', runId]);
    expect(run.stdout.split('\n')[0]).toBe(`run ${runId} · awaiting approval · plan v1 · 0/1 nodes done`);

    const json = JSON.parse((await cli(['--json', 'status', runId])).stdout) as { run: { status: string } };
    expect(json.run.status).toBe('awaiting_approval');
  });
});

describe('diff and revert of a planned node that has not run yet', () => {
  it('say it changed no files, as of a node that ran and changed none', async () => {
    const diff = await cli(['diff', runId, '--node', 'hello']);
    const revert = await cli(['revert', runId, '--node', 'hello', '--dry-run']);

    expect([diff.code, diff.stdout.trim()]).toEqual([0, `node hello of run ${runId} changed no files`]);
    expect([revert.code, revert.stdout.trim()]).toEqual([0, `node hello of run ${runId} changed no files: nothing to revert`]);
  });
});

describe('what a command writes to a file the user names', () => {
  it('is refused in words, exit 2, when the file\'s folder is not there', async () => {
    const exported = await cli(['export', runId, 'out/plan.json']);
    const reported = await cli(['report', runId, '--out', 'out/report.md']);

    expect([exported.code, exported.stderr.trim()]).toEqual([2, `dagent: cannot write plan v1 to out/plan.json: no such folder (ENOENT): make out first`]);
    expect([reported.code, reported.stderr.trim()]).toEqual([2, `dagent: cannot write the report to out/report.md: no such folder (ENOENT): make out first`]);
  });
});

describe('dagent log -f', () => {
  it('ends at once for a run that has ended, even from past its last event', async () => {
    expect((await cli(['--no-sandbox', 'approve', runId])).code).toBe(0);
    expect((await cli(['--no-sandbox', 'run', runId, '--no-dashboard'])).code).toBe(0);

    const followed = await cli(['log', runId, '-f', '--since', '9999']);

    expect([followed.code, followed.stdout]).toEqual([0, '']);
  });

  it('ends for a run whose process is gone, saying how to go on', async () => {
    const store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
    const orphan = await createRun(store.db, { task: 'left running', workspace, mode: 'plan', status: 'running' });
    const gonePid = spawnSync(process.execPath, ['-e', '']).pid!;
    await new EventLog(store.db, orphan.id).append({ type: 'run/started', payload: { pid: gonePid } });
    await store.close();

    const followed = await cli(['log', orphan.id, '-f']);

    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain('run/started');
    expect(followed.stderr.trim()).toBe(`dagent: run ${orphan.id} is running, but its process (pid ${gonePid}) is gone: \`dagent resume ${orphan.id}\` goes on with it`);
  });
});

