import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../engine/index.js';
import BetterSqlite3 from 'better-sqlite3';
import { killRunningClis, spawnCli, type CliProcess } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/** `dagent cancel` through the built binary, against a run another `dagent run` process is running. */

const PLAN: Plan = {
  goal: 'Wait a long time',
  rationale: 'One slow look, then another.',
  nodes: [
    { id: 'slow', kind: 'read', title: 'Look slowly', instructions: 'Take your time.', reads: [], writes: [], dependsOn: [] },
    { id: 'after', kind: 'read', title: 'Look again', instructions: 'Then look again.', reads: [], writes: [], dependsOn: ['slow'] },
  ],
};

let workspace: { dir: string; cleanup: () => void };
let flags: string[];

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCli([...args, ...flags], workspace.dir).exited;
}

/** Starts `dagent run` of a fresh approved run and waits until its slow node has started. */
async function runningRun(): Promise<{ runId: string; runner: CliProcess }> {
  const planned = await cli(['plan', '--from', join(workspace.dir, 'plan.json'), '--json']);
  expect(planned.code, planned.stderr).toBe(0);
  const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
  expect((await cli(['approve', runId])).code).toBe(0);
  const runner = spawnCli(['run', runId, '--no-dashboard', ...flags], workspace.dir);
  const db = new BetterSqlite3(join(workspace.dir, '.dagent', 'dagent.db'), { readonly: true, fileMustExist: true });
  const started = db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM events WHERE run_id = ? AND type = 'node/started'");
  try {
    for (let waited = 0; (started.get(runId)?.n ?? 0) === 0; waited += 50) {
      if (waited > 30_000 || runner.hasExited()) throw new Error(`the run did not start its node:\n${(await runner.exited).stderr}`);
      await sleep(50);
    }
  } finally {
    db.close();
  }
  return { runId, runner };
}

/** Waits until a run started by `runner` has its node started; its id. */
async function startedRunOf(runner: CliProcess): Promise<string> {
  const file = join(workspace.dir, '.dagent', 'dagent.db');
  for (let waited = 0; waited <= 30_000 && !runner.hasExited(); waited += 50) {
    const runId = existsSync(file) ? startedRunIn(file) : undefined;
    if (runId !== undefined) return runId;
    await sleep(50);
  }
  throw new Error(`the run did not start its node:\n${(await runner.exited).stderr}`);
}

/** The run whose node has started in the store at `file`; undefined while there is none (or the store is still being made). */
function startedRunIn(file: string): string | undefined {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare<[], { run_id: string }>("SELECT run_id FROM events WHERE type = 'node/started' LIMIT 1").get()?.run_id;
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

beforeEach(() => {
  workspace?.cleanup();
  workspace = tempDir('dagent-cancel-');
  writeFileSync(join(workspace.dir, 'plan.json'), JSON.stringify(PLAN));
  const script = join(workspace.dir, 'slow.script.json');
  writeFileSync(script, JSON.stringify({ agents: { 'node:slow': [{ latencyMs: 60_000, text: 'too late' }], 'node:after': [{ text: 'seen' }], react: [{ latencyMs: 60_000, text: 'too late' }] } }));
  flags = ['--model', `scripted:${script}`, '--approval', 'auto'];
});

afterAll(() => {
  killRunningClis();
  workspace?.cleanup();
});

describe('dagent cancel', () => {
  it('stops a running run: the process running it ends it cancelled, and status says so', async () => {
    const { runId, runner } = await runningRun();

    const cancelled = await cli(['cancel', runId]);

    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout.trim()).toBe(`run ${runId} cancelled; resume with: dagent resume ${runId}`);
    const ran = await runner.exited;
    expect(ran.code).toBe(1);
    const status = await cli(['status', runId, '--json']);
    expect(JSON.parse(status.stdout).run.status).toBe('cancelled');
  }, 60_000);

  it('stops a react run: it ends cancelled (exit 1, as a cancelled run), and what to do next is not a resume, which a run without a plan has not', async () => {
    const runner = spawnCli(['react', 'wait a long time', ...flags], workspace.dir);
    const runId = await startedRunOf(runner);

    const cancelled = await cli(['cancel', runId]);

    expect(cancelled.code, cancelled.stderr).toBe(0);
    const wayOn = `a react run has no plan to resume; see what it changed: dagent diff ${runId}, or run it again: dagent react 'wait a long time'`;
    expect(cancelled.stdout.trim()).toBe(`run ${runId} cancelled; ${wayOn}`);
    const ran = await runner.exited;
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stderr).toContain('cancelled: interrupted (SIGINT); nothing was changed');
    const resumed = await cli(['resume', runId]);
    expect([resumed.code, resumed.stderr.trim()]).toEqual([2, `dagent: run ${runId} cancelled: ${wayOn}`]);
  }, 60_000);

  it('records the cancellation itself when the process running it was killed', async () => {
    const { runId, runner } = await runningRun();
    runner.child.kill('SIGKILL');
    await runner.exited;

    const cancelled = await cli(['cancel', runId]);

    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout.trim()).toBe(`run ${runId} cancelled (its process had already stopped); resume with: dagent resume ${runId}`);
  }, 60_000);

  it('refuses a run that is not running, in one line', async () => {
    const planned = await cli(['plan', '--from', join(workspace.dir, 'plan.json'), '--json']);
    const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;

    const refused = await cli(['cancel', runId]);

    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(`dagent: run ${runId} is not running (its plan awaits approval)`);
  }, 60_000);

  it('keeps a running run\'s plan from changing under it: import and edit are refused until the run is cancelled', async () => {
    const { runId, runner } = await runningRun();
    const edited: Plan = { ...PLAN, nodes: [PLAN.nodes[0]!] };
    writeFileSync(join(workspace.dir, 'edited.json'), JSON.stringify(edited));

    const imported = await cli(['import', runId, join(workspace.dir, 'edited.json')]);
    const edit = spawnCli(['edit', runId, ...flags], workspace.dir, { env: { EDITOR: 'true' } });

    const refusal = `dagent: run ${runId} is running (pid ${runner.child.pid}): its plan cannot change under it; change it once the run ends, or \`dagent cancel ${runId}\` (the run stays resumable) and then change it`;
    expect([imported.code, imported.stderr.trim()]).toEqual([2, refusal]);
    const editResult = await edit.exited;
    expect([editResult.code, editResult.stderr.trim()]).toEqual([2, refusal]);
    expect((await cli(['cancel', runId])).code).toBe(0);
    await runner.exited;
    const after = await cli(['import', runId, join(workspace.dir, 'edited.json')]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('plan v1 → v2');
  }, 60_000);
});

