import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../engine/index.js';
import { killRunningClis, spawnCli, type CliProcess } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * `dagent say`, `dagent pause` and `dagent resume --node` through the built binary, against a run
 * another `dagent run` process is running: the words and the pause travel through the shared log.
 * The node's first step is a command that waits for a gate file, so each request lands while it runs.
 */

const PLAN: Plan = {
  goal: 'Wait for the gate, then answer',
  rationale: 'One node that is still running when it is spoken to.',
  nodes: [{ id: 'slow', kind: 'agent', title: 'Wait for the gate', instructions: 'Wait, then answer.', reads: [], writes: [], dependsOn: [], tools: ['run_command'] }],
};

let workspace: { dir: string; cleanup: () => void };
let gates: { dir: string; cleanup: () => void };
let flags: string[];

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCli([...args, ...flags], workspace.dir).exited;
}

function database(): BetterSqlite3.Database {
  return new BetterSqlite3(join(workspace.dir, '.dagent', 'dagent.db'), { readonly: true, fileMustExist: true });
}

/** Waits until the run's log has an event of `type` (for `nodeId`). */
async function eventAppears(runId: string, type: string, runner: CliProcess): Promise<void> {
  const db = database();
  const count = db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM events WHERE run_id = ? AND type = ?');
  try {
    for (let waited = 0; (count.get(runId, type)?.n ?? 0) === 0; waited += 50) {
      if (waited > 30_000 || runner.hasExited()) throw new Error(`no ${type} in the log:\n${(await runner.exited).stderr}`);
      await sleep(50);
    }
  } finally {
    db.close();
  }
}

/** Starts `dagent run` of a fresh approved run and waits until its node runs its waiting command. */
async function runningRun(): Promise<{ runId: string; runner: CliProcess }> {
  const planned = await cli(['plan', '--from', join(workspace.dir, 'plan.json'), '--json']);
  expect(planned.code, planned.stderr).toBe(0);
  const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
  expect((await cli(['approve', runId])).code).toBe(0);
  const runner = spawnCli(['run', runId, '--no-dashboard', ...flags], workspace.dir);
  await eventAppears(runId, 'tool/call', runner);
  return { runId, runner };
}

beforeEach(() => {
  workspace?.cleanup();
  gates?.cleanup();
  workspace = tempDir('dagent-say-');
  gates = tempDir('dagent-say-gate-');
  writeFileSync(join(workspace.dir, 'plan.json'), JSON.stringify(PLAN));
  const script = join(workspace.dir, 'slow.script.json');
  const wait = `until [ -e ${join(gates.dir, 'open')} ]; do sleep 0.05; done; echo through`;
  writeFileSync(
    script,
    JSON.stringify({
      agents: {
        'node:slow': [{ toolCalls: [{ id: 'wait', name: 'run_command', args: { command: wait } }] }, { text: 'done, with tabs' }],
      },
    }),
  );
  // Unconfined: the sandbox gives a command a private /tmp, where the gate is.
  flags = ['--model', `scripted:${script}`, '--approval', 'auto', '--no-sandbox'];
});

// A run process killed mid-command leaves its command waiting (nothing resumes the run here to
// stop it): the gate is opened so it ends before its folder goes.
afterEach(async () => {
  writeFileSync(join(gates.dir, 'open'), '');
  await sleep(300);
});

afterAll(() => {
  killRunningClis();
  workspace?.cleanup();
  gates?.cleanup();
});

interface Row {
  seq: number;
  step: number;
  payload: string;
  source_event_seqs: string | null;
}

describe('a word to a running node', () => {
  it('is part of the next request the node makes, once, and pause holds the node until resume', async () => {
    const { runId, runner } = await runningRun();

    const said = await cli(['say', runId, '--node', 'slow', 'use', 'tabs,', 'not spaces']);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toContain('told slow of run');
    const paused = await cli(['pause', runId, '--node', 'slow']);
    expect(paused.code, paused.stderr).toBe(0);
    writeFileSync(join(gates.dir, 'open'), '');
    await eventAppears(runId, 'node/paused', runner);

    const status = await cli(['status', runId]);
    expect(status.stdout).toMatch(/slow\s+paused/);
    expect(status.stdout).toContain(`paused by request: slow; \`dagent resume ${runId}\``);
    expect(JSON.parse((await cli(['status', runId, '--json'])).stdout).nodes[0].pause).toBe('paused');
    // A second word while it waits: it comes with the first, at the same step.
    expect((await cli(['say', runId, '--node', 'slow', 'and keep the tests green'])).code).toBe(0);

    const resumed = await cli(['resume', runId, '--node', 'slow']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe(`resuming slow of run ${runId}: it goes on at once`);
    const ran = await runner.exited;
    expect(ran.code, ran.stderr).toBe(0);

    const db = database();
    try {
      const words = db.prepare<[string], Row>("SELECT seq, step, payload, source_event_seqs FROM events WHERE run_id = ? AND type = 'user/message' AND payload LIKE '%\"source\":\"user\"%' ORDER BY seq").all(runId);
      expect(words.map((row) => (JSON.parse(row.payload) as { content: string }).content)).toEqual(['use tabs, not spaces', 'and keep the tests green']);
      expect(words.map((row) => row.step)).toEqual([2, 2]);
      const told = db.prepare<[string], { seq: number }>("SELECT seq FROM events WHERE run_id = ? AND type = 'node/told' ORDER BY seq").all(runId);
      expect(words.map((row) => JSON.parse(row.source_event_seqs ?? '[]') as number[])).toEqual(told.map((row) => [row.seq]));
      const contexts = db.prepare<[string], { step: number; payload: string }>("SELECT step, payload FROM events WHERE run_id = ? AND type = 'request/context' AND node_id = 'slow' ORDER BY seq").all(runId);
      const sent = contexts.map((row) => ({ step: row.step, seqs: (JSON.parse(row.payload) as { messageSeqs: number[] }).messageSeqs }));
      expect(sent[0]!.seqs).not.toContain(words[0]!.seq);
      expect(sent[1]).toMatchObject({ step: 2 });
      expect(sent[1]!.seqs).toEqual(expect.arrayContaining(words.map((row) => row.seq)));
      // The pause came after the first step's tool result and before the second request.
      const order = db.prepare<[string], { type: string }>("SELECT type FROM events WHERE run_id = ? AND node_id = 'slow' AND type IN ('tool/result', 'node/paused', 'node/resume-requested', 'request/context') ORDER BY seq").all(runId);
      expect(order.map((row) => row.type)).toEqual(['request/context', 'tool/result', 'node/paused', 'node/resume-requested', 'request/context']);
    } finally {
      db.close();
    }
    const inspect = await cli(['inspect', runId, '--node', 'slow', '--step', '2']);
    expect(inspect.stdout).toContain('use tabs, not spaces');
  }, 90_000);

  it('refuses in one line: an unknown run, an unknown node, a node that is not running', async () => {
    const { runId, runner } = await runningRun();

    const unknownRun = await cli(['say', 'r-nope', '--node', 'slow', 'hello']);
    const unknownNode = await cli(['say', runId, '--node', 'nope', 'hello']);
    const empty = await cli(['say', runId, '--node', 'slow']);
    const notPaused = await cli(['resume', runId, '--node', 'slow']);
    writeFileSync(join(gates.dir, 'open'), '');
    expect((await runner.exited).code).toBe(0);
    const finished = await cli(['pause', runId, '--node', 'slow']);

    expect(unknownRun.code).toBe(2);
    expect(unknownRun.stderr.trim()).toBe('dagent: unknown run "r-nope": `dagent status` lists the runs of this workspace');
    expect(unknownNode.code).toBe(2);
    expect(unknownNode.stderr.trim()).toBe(`dagent: run ${runId} has no node "nope": \`dagent status ${runId}\` lists its nodes`);
    expect(empty.stderr.trim()).toBe('dagent: say what? the text to send is empty');
    expect(notPaused.code).toBe(2);
    expect(notPaused.stderr.trim()).toBe(`dagent: node slow of run ${runId} is not paused (it is running)`);
    expect(finished.code).toBe(2);
    expect(finished.stderr.trim()).toBe(`dagent: node slow of run ${runId} is not running (it succeeded); only a running node hears a word or pauses`);
  }, 90_000);

  it('says when the run\'s process is gone: the word waits for the resume, the pause has nothing to pause', async () => {
    const { runId, runner } = await runningRun();
    runner.child.kill('SIGKILL');
    await runner.exited;

    const told = await cli(['say', runId, '--node', 'slow', 'hello']);
    const paused = await cli(['pause', runId, '--node', 'slow']);

    expect(told.code, told.stderr).toBe(0);
    expect(told.stderr.trim()).toBe(`dagent: warning: run ${runId}'s process (pid ${runner.child.pid}) is gone: the node reads your message once \`dagent resume ${runId}\` takes the run up`);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stderr.trim()).toBe(`dagent: warning: run ${runId}'s process (pid ${runner.child.pid}) is gone: nothing runs the node to pause it; \`dagent resume ${runId}\` takes the run up, its nodes going on`);
  }, 90_000);
});

