import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli } from '../../helpers/crash-process.js';
import { approvedSmallRun, describeExit, gitInit, query, until, type SmallRun } from './fleet-harness.js';

/**
 * Clone mode: a run whose worker runs a node in its own clone is cancelled while the node waits
 * for its third model answer, then resumed on another worker, in a clone of its own (another
 * host). The node goes on from its last completed step there, from the checkpoints the log keeps
 * (patches): its two answered model calls are not made again, each write runs once, and the
 * user's workspace ends with all three files.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 90_000;
const root = cliRunsRoot('dagent-worker-stopped-resume-clone-');

const write = (path: string, content: string, id: string) => ({ toolCalls: [{ id, name: 'write_file', args: { path, content } }] });
const TURNS = [write('out/one.txt', 'one\n', 'w1'), write('out/two.txt', 'two\n', 'w2'), write('out/three.txt', 'three\n', 'w3'), { text: 'Wrote the three files.' }];

interface Row {
  readonly step: number | null;
  readonly payload: Record<string, unknown>;
}

async function nodeEvents(run: SmallRun, type: string): Promise<Row[]> {
  const rows = await query<{ step: number | null; payload: string }>(run.url, "SELECT step, payload FROM events WHERE run_id = $1 AND node_id = 'work' AND type = $2 ORDER BY seq", [run.runId, type]);
  return rows.map((row) => ({ step: row.step, payload: JSON.parse(row.payload) as Record<string, unknown> }));
}

describe.skipIf(postgresUrl === '')('a run in clone mode cancelled in the middle of a node', () => {
  it("resumed on a worker in another clone, goes on from the node's last completed step: only the remaining model calls, each write once, the files right", async () => {
    const plan: Plan = {
      goal: 'Write three files',
      rationale: 'One node, one file a step.',
      nodes: [{ id: 'work', kind: 'edit', title: 'Write three files', instructions: 'Write out/one.txt, out/two.txt and out/three.txt.', reads: [], writes: ['out/one.txt', 'out/two.txt', 'out/three.txt'], dependsOn: [] }],
    };
    // The third answer takes a minute: the run is cancelled while it is awaited.
    const slowThird = TURNS.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn));
    const run = await approvedSmallRun(postgresUrl, root.dir, 'cloned', plan, { 'node:work': slowThird }, ['README.md']);
    gitInit(run.workspace);
    const clones = [1, 2].map((index) => {
      const clone = join(root.dir, `clone-${index}`);
      execFileSync('git', ['clone', '-q', run.workspace, clone], { stdio: 'ignore' });
      return clone;
    });
    const startWorker = (clone: string) => spawnCli(['worker', '--no-sandbox', '--clone', clone, ...run.flags], clone, { timeLimitMs: 120_000 });

    const firstWorker = startWorker(clones[0]!);
    const scheduler = spawnCli(['run', run.runId, '--workers', '--clone', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    await until('the third model call to be in flight', async () => (await nodeEvents(run, 'request/header')).some((event) => event.step === 3), TIMEOUT_MS / 2, [firstWorker, scheduler]);
    expect((await spawnCli(['cancel', run.runId, ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS }).exited).code).toBe(0);
    const cancelled = await scheduler.exited;
    expect(cancelled.stdout, describeExit(cancelled)).toContain(`run ${run.runId} cancelled`);
    firstWorker.child.kill('SIGTERM');
    await firstWorker.exited;

    // The same turns, answered at once, for the worker that resumes it in its own clone.
    writeFileSync(join(root.dir, 'cloned-script.json'), JSON.stringify({ agents: { 'node:work': TURNS } }));
    const secondWorker = startWorker(clones[1]!);
    const resumed = await spawnCli(['resume', run.runId, '--workers', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS }).exited;
    secondWorker.child.kill('SIGTERM');
    const secondExit = await secondWorker.exited;

    expect(resumed.code, `${describeExit(resumed)}\n--- the worker:\n${describeExit(secondExit)}`).toBe(0);
    for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']] as const) {
      expect(readFileSync(join(run.workspace, path), 'utf8'), path).toBe(content);
    }
    expect(resumed.stdout).toContain('⏵ work resumed after step 2 · 2 files put back as after step 2 · the model call in flight runs again · 2 model calls not repeated');
    expect((await nodeEvents(run, 'assistant/message')).map((event) => event.step), 'one answer per step, none repeated').toEqual([1, 2, 4, 5]);
    expect((await nodeEvents(run, 'tool/result')).map((event) => event.payload.toolCallId), 'each write ran once').toEqual(['w1', 'w2', 'w3']);
    expect((await nodeEvents(run, 'step/resumed'))[0]?.payload).toMatchObject({ attempt: 2, fromStep: 2, rerun: 'model-call', modelCalls: 2, restored: ['out/one.txt', 'out/two.txt'] });
  }, TIMEOUT_MS * 2);
});
